import type { Kysely } from 'kysely';
import { CreatedInvoice, InvoiceList, StoredInvoice } from '../shared/index.ts';
import { CheckoutView } from '../shared/checkout.ts';
import type { Logger } from '../core/log.ts';
import type { CallLimit } from '../edge/http/rate-limit.ts';
import { inProcess } from '../mcp/in-process-result.ts';
import { parseListQuery } from '../core/invoices/list-query.ts';
import type { ListenerClient } from '../mcp/listener-client.ts';
import type { CloudTables } from './storage/cloud.tables.ts';
import type { CloudService } from './cloud-service.ts';
import { findMerchant, type MerchantRow } from './merchants/merchant.repository.ts';
import { x402RequirementsOf, type X402Payments } from '../core/x402/x402-payments.ts';

export interface CloudMcpClientDeps {
  cloud: CloudService;
  db: Kysely<CloudTables>;
  merchant: MerchantRow;
  /** The hash of the key the session was opened with: creates count per key, as over HTTP. */
  keyHash: string;
  /** POST /api/v1/invoice's per-key limit, shared with it. */
  limit: CallLimit;
  documents: { openapi: string; llms: string };
  logger: Logger;
  /** The invoices' x402 payment method: the requirements an x402_url answers with. */
  x402: Pick<X402Payments, 'quote'>;
}

/**
 * The MCP tools' view of Cloud, scoped to one merchant: the Cloud service called in process, with
 * the answers and error codes of its /api/v1 routes. Another merchant's invoice is `not_found`.
 */
export function cloudMcpClient(deps: CloudMcpClientDeps): ListenerClient {
  const { cloud, merchant, logger } = deps;
  // A session outlives the request that opened it: the plan and keys are read again at each create.
  const current = async () => (await findMerchant(deps.db, merchant.merchant_id)) ?? merchant;
  return {
    createInvoice: (body) => inProcess(CreatedInvoice, () => deps.limit(deps.keyHash, async () => cloud.invoices.create(await current(), body, new Map())), 'create_failed', logger),
    getInvoice: (invoiceId) => inProcess(StoredInvoice, () => cloud.invoices.get(merchant, invoiceId), 'lookup_failed', logger),
    // The merchant's own: the assets its receive methods enable now (its keys may have changed since the session opened).
    healthAssets: async () => ({ ok: true, value: { enabled_assets: cloud.invoices.enabledAssets(await current()) } }),
    checkoutView: (invoiceId) => inProcess(CheckoutView, () => cloud.publicInvoices.checkoutView(invoiceId), 'lookup_failed', logger),
    document: async (name) => ({ ok: true, value: name === 'llms.txt' ? deps.documents.llms : deps.documents.openapi }),
    x402Requirements: x402RequirementsOf(deps.x402),
    listInvoices: (query) => inProcess(InvoiceList, async () => cloud.invoices.lists.page(merchant.merchant_id, parseListQuery(query)), 'lookup_failed', logger),
  };
}
