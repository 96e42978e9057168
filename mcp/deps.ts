import type { Logger } from '../core/log.ts';
import type { InvoiceUpdates } from './invoice-watch.ts';
import type { ListenerClient } from './listener-client.ts';
import type { McpChain } from './mcp-chain.ts';
import type { PaymentState } from './payment-state.ts';

/** Everything the MCP server touches outside itself, injected by the entry point (or a test). */
export interface ServerDeps {
  listener: ListenerClient;
  /** The chains the service runs: the texts and tool descriptions speak of each as it says. */
  chains: readonly McpChain[];
  /** Where status changes of the listener's invoices are heard (subscriptions, wait_for_payment). */
  updates: InvoiceUpdates;
  renderQr(uri: string): Buffer;
  logger: Logger;
  /** Told of every tool call as it ends: `error` for a tool error result or a throw. */
  onToolCall?: (tool: string, outcome: 'ok' | 'error') => void;
  /** How often wait_for_payment reports progress (default 1 s). */
  pollIntervalMs?: number;
  /**
   * What this server's owner seals across requests (mcp/payment-state.ts): create_invoice's
   * checkout hand-off and, on 2026-07-28 servers, wait_for_payment as a task. Without it, neither.
   */
  paymentState?: PaymentState;
}

export const DEFAULT_POLL_INTERVAL_MS = 1_000;
