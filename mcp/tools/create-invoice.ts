import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { openCheckoutShape } from '../checkout-hand-off.ts';
import { CreateInvoiceRequest, CreatedInvoice, X402PaymentRequired } from '../../shared/index.ts';
import { pricingTexts } from '../chain-texts.ts';
import { validatedByListener } from '../input-schema.ts';
import { describeCreatedInvoice, describeX402 } from '../invoice-text.ts';
import { toolError } from '../tool-error.ts';
import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { INVOICE_APP_URI, invoiceAppExtras } from '../app/invoice-app.ts';
import type { ServerDeps } from '../deps.ts';
import { toolIcons } from '../icons.ts';

const name = 'create_invoice';

/** Shown to people (hosts list the tool by it); the same in the annotations, for hosts that read only those. */
const title = 'Create a payment invoice';

// Loose: an argument the contract does not know reaches the listener, which refuses it by name
// (bad_body), rather than being dropped here unread.
const inputSchema = z.looseObject(validatedByListener(CreateInvoiceRequest.shape));
/** With the checkout hand-off: one schema for every server, so its JSON Schema is converted once (convertOnce). */
const inputSchemaWithHandOff = inputSchema.extend(openCheckoutShape);

/** What a model reads of the tool: how to price an invoice on each of the chains the service runs. */
const description = (chains: ServerDeps['chains']) =>
  [
    'Creates a pending invoice on the payment listener and returns where and how much the payer must send, a payment URI and its QR code (PNG).',
    ...pricingTexts(chains),
    'To bill in a fiat currency ("$25 in bitcoin", "€40 in USDC"), send price_amount (decimal text, "25.00"; no decimals for JPY) with price_currency (USD, EUR, GBP, CHF, CAD, AUD or JPY) instead of the amount field: the service converts at the median of several exchanges\' rates and fixes the amount for the invoice\'s life; rate_unavailable means the exchanges do not agree right now: retry later or price in the asset.',
    'The invoice expires after expires_in seconds (default 3600; fixed-address invoices always one hour). Each call creates a new invoice: do not retry a call that succeeded.',
    'Bitcoin: where the merchant connected its own Lightning wallet (list_supported_assets lists btc-lightning), the invoice also carries a BOLT11 invoice (lightning_invoice) and the payment URI carries both; payment_methods ["lightning"] or ["onchain"] narrows it, and lightning_unavailable means the wallet did not answer: retry, or allow onchain.',
    "Optional on every chain: order_id (your order reference, returned on the invoice and in its webhook), metadata (flat string keys and values), memo (shown to the payer) and redirect_url (https; the payer's page links back to it once paid). Any other argument is refused with bad_body.",
    'Call list_supported_assets first if unsure what this listener accepts. Errors come back as "<code>: <message>" with a stable code such as invalid_amount, chain_disabled or unauthorized.',
  ].join(' ');

const config = {
  title,
  outputSchema: z.object({ invoice: CreatedInvoice, x402: X402PaymentRequired.optional().describe('The x402 payment requirements of x402_url, when x402 can pay the invoice.') }),
  // Adds an invoice and changes nothing stored; each call makes a new one (no idempotency key);
  // it touches only the merchant's own listener, never a chain or a third party.
  annotations: { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  icons: toolIcons[name],
  // Only the agent creates invoices: the view cannot.
  _meta: { ui: { resourceUri: INVOICE_APP_URI, visibility: ['model'] } },
};


export function registerCreateInvoiceTool(server: McpServer, deps: ServerDeps): void {
  const create = async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> => {
    const created = await deps.listener.createInvoice(args);
    if (!created.ok) return toolError(created.failure);
    const invoice = created.value;
    const x402 = invoice.x402_url ? await deps.listener.x402Requirements(invoice.invoice_id) : null;
    const content: CallToolResult['content'] = [{ type: 'text', text: [describeCreatedInvoice(deps.chains, invoice), ...describeX402(invoice, x402)].join('\n') }];
    // The invoice exists now: a failed picture must not turn into an error an agent would retry.
    try {
      content.push({ type: 'image', data: deps.renderQr(invoice.qr_uri).toString('base64'), mimeType: 'image/png' });
    } catch (error) {
      deps.logger.warn('QR code rendering failed', { invoice_id: invoice.invoice_id, error });
    }
    return {
      structuredContent: { invoice, ...(x402 && { x402 }) } satisfies { invoice: z.infer<typeof CreatedInvoice>; x402?: X402PaymentRequired },
      content,
      ...(await invoiceAppExtras(server, ctx, deps, invoice)),
    };
  };
  const handOff = deps.paymentState?.handOff;
  const described = { ...config, description: description(deps.chains) };
  if (!handOff) registerAppTool(server, name, { ...described, inputSchema }, create);
  else registerAppTool(server, name, { ...described, inputSchema: inputSchemaWithHandOff }, handOff.wrap(server.server, create));
}
