import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { BtcInvoice, StoredInvoice, X402PaymentRequired } from '../../shared/index.ts';
import { describeStoredInvoice, describeX402 } from '../invoice-text.ts';
import { toolError } from '../tool-error.ts';
import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { INVOICE_APP_URI, invoiceAppExtras } from '../app/invoice-app.ts';
import type { ServerDeps } from '../deps.ts';
import { confirmationTimesText } from '../chain-texts.ts';
import { toolIcons } from '../icons.ts';

const name = 'get_invoice_status';

/** Shown to people (hosts list the tool by it); the same in the annotations, for hosts that read only those. */
const title = 'Get an invoice and its payment status';

const description = (chains: ServerDeps['chains']) =>
  [
    'Reads an invoice by the invoice_id that create_invoice returned, with its current status.',
    'Status: "pending" = waiting for payment; "confirmed" = the payment has the required on-chain confirmations (or a Bitcoin invoice was paid over Lightning: payment_method "lightning", tx_hash null), paid_at is set and the merchant has been notified: the only status that means paid;',
    '"expired" = passed expires_at without payment (do not ask the payer to pay it; create a new invoice); "partial" = a payment was seen that does not cover the amount; "failed" = cannot complete.',
    `Payments take time to confirm (${confirmationTimesText(chains)}). Poll sparingly: at most about once a minute, and stop once the status is confirmed, expired or failed.`,
  ].join(' ');

const config = {
  title,
  inputSchema: z.object({ invoice_id: BtcInvoice.shape.invoice_id }),
  outputSchema: z.object({ invoice: StoredInvoice, x402: X402PaymentRequired.optional().describe('The x402 payment requirements of x402_url, when x402 can pay the invoice now.') }),
  annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: toolIcons[name],
  // The agent reads it, and so does the view (to refresh itself after wait_for_payment).
  _meta: { ui: { resourceUri: INVOICE_APP_URI, visibility: ['model', 'app'] } },
};

export function registerGetInvoiceStatusTool(server: McpServer, deps: ServerDeps): void {
  registerAppTool(server, name, { ...config, description: description(deps.chains) }, async ({ invoice_id }, ctx): Promise<CallToolResult> => {
    const read = await deps.listener.getInvoice(invoice_id);
    if (!read.ok) return toolError(read.failure);
    const invoice = read.value;
    const x402 = invoice.x402_url ? await deps.listener.x402Requirements(invoice_id) : null;
    return {
      structuredContent: { invoice, ...(x402 && { x402 }) } satisfies { invoice: z.infer<typeof StoredInvoice>; x402?: X402PaymentRequired },
      content: [{ type: 'text', text: [describeStoredInvoice(deps.chains, invoice), ...describeX402(invoice, x402)].join('\n') }],
      ...(await invoiceAppExtras(server, ctx, deps, invoice)),
    };
  });
}

