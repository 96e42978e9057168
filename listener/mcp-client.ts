import { CreatedInvoice, Health, StoredInvoice } from '../shared/index.ts';
import type { InvoiceService } from '../core/invoices/invoice.service.ts';
import type { Logger } from '../core/log.ts';
import { inProcess } from '../mcp/in-process-result.ts';
import type { ListenerClient } from '../mcp/listener-client.ts';
import type { CallLimit } from '../edge/http/rate-limit.ts';
import { CheckoutView } from '../shared/checkout.ts';
import type { CheckoutSource } from '../edge/checkout/checkout-source.ts';
import { x402RequirementsOf, type X402Payments } from '../core/x402/x402-payments.ts';

export interface ListenerMcpClientDeps {
  invoices: InvoiceService;
  health: () => Promise<Health>;
  documents: { openapi: string; llms: string };
  /** The checkout page's source: the MCP Apps invoice view shows the same view. */
  checkout: CheckoutSource;
  /** POST /invoice's rate limit, shared: a create through MCP counts like one over HTTP. */
  limit: CallLimit;
  /** Whom the limit counts the calls of (the client IP that opened the MCP session). */
  client: string;
  logger: Logger;
  /** The invoices' x402 payment method: the requirements an x402_url answers with. */
  x402: Pick<X402Payments, 'quote'>;
}

/**
 * The MCP tools' view of the listener inside the listener itself: the invoice service called
 * directly, with the answers and error codes its HTTP routes give, and no request back to itself.
 */
export function listenerMcpClient(deps: ListenerMcpClientDeps): ListenerClient {
  const { invoices, logger } = deps;
  return {
    createInvoice: (body) => inProcess(CreatedInvoice, () => deps.limit(deps.client, () => invoices.create(body)), 'create_failed', logger),
    getInvoice: (invoiceId) => inProcess(StoredInvoice, () => invoices.get(invoiceId), 'lookup_failed', logger),
    healthAssets: () => inProcess(Health.pick({ enabled_assets: true }), async () => ({ enabled_assets: (await deps.health()).enabled_assets }), 'internal_error', logger),
    checkoutView: (invoiceId) => inProcess(CheckoutView, () => deps.checkout.view(invoiceId), 'lookup_failed', logger),
    document: async (name) => ({ ok: true, value: name === 'llms.txt' ? deps.documents.llms : deps.documents.openapi }),
    x402Requirements: x402RequirementsOf(deps.x402),
  };
}
