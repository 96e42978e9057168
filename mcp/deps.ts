import type { Logger } from '../core/log.ts';
import type { InvoiceUpdates } from './invoice-watch.ts';
import type { ListenerClient } from './listener-client.ts';

/** Everything the MCP server touches outside itself, injected by the entry point (or a test). */
export interface ServerDeps {
  listener: ListenerClient;
  /** Where status changes of the listener's invoices are heard (subscriptions, wait_for_payment). */
  updates: InvoiceUpdates;
  renderQr(uri: string): Buffer;
  logger: Logger;
  /** Told of every tool call as it ends: `error` for a tool error result or a throw. */
  onToolCall?: (tool: string, outcome: 'ok' | 'error') => void;
  /** How often wait_for_payment reports progress (default 1 s). */
  pollIntervalMs?: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 1_000;
