import type { Logger } from '../core/log.ts';
import type { ListenerClient } from './listener-client.ts';

/** Everything the MCP server touches outside itself, injected by the entry point (or a test). */
export interface ServerDeps {
  listener: ListenerClient;
  renderQr(uri: string): Buffer;
  logger: Logger;
  /** Told of every tool call as it ends: `error` for a tool error result or a throw. */
  onToolCall?: (tool: string, outcome: 'ok' | 'error') => void;
  /** How often subscriptions and wait_for_payment re-read an invoice (default 1 s). */
  pollIntervalMs?: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 1_000;
