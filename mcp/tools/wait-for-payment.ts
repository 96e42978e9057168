import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { BtcInvoice, StoredInvoice } from '../../shared/index.ts';
import { DEFAULT_POLL_INTERVAL_MS, type ServerDeps } from '../deps.ts';
import { PaymentOutcome, paymentOutcomeResult, settledOutcome } from '../payment-outcome.ts';
import { toolError } from '../tool-error.ts';
import { toolIcons } from '../icons.ts';
import { confirmationTimesText } from '../chain-texts.ts';

const name = 'wait_for_payment';

export const WAIT_DEFAULT_S = 60;
export const WAIT_MAX_S = 300;

export const WaitForPaymentArgs = z.object({
  invoice_id: BtcInvoice.shape.invoice_id,
  timeout_s: z.number().int().min(1).max(WAIT_MAX_S).default(WAIT_DEFAULT_S).describe(`Seconds to wait at most (1-${WAIT_MAX_S}, default ${WAIT_DEFAULT_S}).`),
});

/** Shown to people (hosts list the tool by it); the same in the annotations, for hosts that read only those. */
const title = 'Wait until an invoice is paid or expires';

const description = (chains: ServerDeps['chains']) =>
  [
    'Waits until the invoice is confirmed, expired or failed, or until timeout_s seconds pass (default 60, at most 300), then returns which with the invoice.',
    'Sends progress notifications while it waits when the request carries a progressToken. Use it instead of polling get_invoice_status; a client that supports subscriptions can instead subscribe to the resource invoice://{invoice_id}.',
    `Payments take time to confirm (${confirmationTimesText(chains)}): call it again after a "timeout".`,
  ].join(' ');

const config = {
  title,
  inputSchema: WaitForPaymentArgs,
  outputSchema: z.object({ outcome: PaymentOutcome, invoice: StoredInvoice }),
  // It only reads and waits: calling it again changes nothing but how long the caller waits.
  annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: toolIcons[name],
  // The agent waits with it, and so does the view (to turn to Paid by itself).
  _meta: { ui: { visibility: ['model', 'app'] } },
};

/** Resolves after `ms`, or at once when `signal` aborts or `wake` is called. */
function pause(ms: number, signal: AbortSignal, wakeUp: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    wakeUp(done);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      wakeUp(() => undefined);
      resolve();
    }
  });
}

export function registerWaitForPaymentTool(server: McpServer, deps: ServerDeps): void {
  const progressMs = deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  server.registerTool(name, { ...config, description: description(deps.chains) }, async ({ invoice_id, timeout_s }, ctx): Promise<CallToolResult> => {
    const started = performance.now();
    const deadline = started + timeout_s * 1000;
    const progressToken = ctx.mcpReq._meta?.progressToken;
    // The invoice is read again only when the updates say its status changed (and at the end).
    let changed = false;
    let wake = () => undefined as void;
    const stop = deps.updates.watch(invoice_id, () => {
      changed = true;
      wake();
    });
    try {
      let read = await deps.listener.getInvoice(invoice_id);
      for (;;) {
        if (!read.ok) return toolError(read.failure);
        const invoice = read.value;
        const now = performance.now();
        const outcome = settledOutcome(invoice) ?? (now >= deadline || ctx.mcpReq.signal.aborted ? 'timeout' : null);
        if (outcome) return paymentOutcomeResult(deps.chains, outcome, invoice, timeout_s);
        if (progressToken !== undefined) {
          const waitedS = Math.round((now - started) / 1000);
          await ctx.mcpReq
            .notify({
              method: 'notifications/progress',
              params: { progressToken, progress: waitedS, total: timeout_s, message: `Invoice ${invoice.status}; waited ${waitedS} of ${timeout_s} s.` },
            })
            .catch(() => undefined);
        }
        // Without a progress token nothing is sent while waiting: sleep until a change or the deadline.
        const waitMs = Math.max(0, deadline - now);
        if (!changed) await pause(progressToken === undefined ? waitMs : Math.min(progressMs, waitMs), ctx.mcpReq.signal, (done) => (wake = done));
        if (changed || performance.now() >= deadline || ctx.mcpReq.signal.aborted) {
          changed = false;
          read = await deps.listener.getInvoice(invoice_id);
        }
      }
    } finally {
      stop();
    }
  });
}
