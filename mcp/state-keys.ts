import { createHmac } from 'node:crypto';

/** The uses of the MCP state secret: each gets its own key, so a value sealed for one is nothing to another. */
export type StatePurpose = 'tasks' | 'checkout-hand-off';

/** At least this many bytes of secret (the SDK's request-state codec asks as much of its key). */
export const MIN_STATE_SECRET_BYTES = 32;

/**
 * The key of one purpose, derived from the one secret every instance of a deployment shares (what
 * an instance seals, another opens: tasks polled elsewhere, input rounds retried elsewhere).
 */
export function stateKey(secret: Uint8Array | string, purpose: StatePurpose): Uint8Array {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (bytes.length < MIN_STATE_SECRET_BYTES) throw new RangeError(`The MCP state secret must be at least ${MIN_STATE_SECRET_BYTES} bytes.`);
  return new Uint8Array(createHmac('sha256', bytes).update(`service mcp state: ${purpose}`).digest());
}
