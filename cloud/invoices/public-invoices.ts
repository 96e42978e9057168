import { settingsOf } from '../../core/chain-definition.ts';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { findInvoice, type InvoiceRow } from '../../core/invoices/invoice.repository.ts';
import type { InvoiceEngine } from '../../core/invoices/invoice.service.ts';
import { checkoutView, type ViewContext } from '../../edge/checkout/checkout-view.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { CloudConfig } from '../cloud-config.ts';
import { findMerchant, type MerchantRow } from '../merchants/merchant.repository.ts';

export interface PublicInvoicesDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  config: CloudConfig;
  engine: InvoiceEngine;
  /** The invoices' x402 URLs on the public checkout view (core/x402). */
  x402Url?: ViewContext['x402Url'];
}

/** Any merchant's invoice by id, for the public pages (checkout, x402): no key, display fields only. */
export function createPublicInvoices(deps: PublicInvoicesDeps) {
  const { db, clock, config, engine } = deps;

  /** A pending invoice past its expiry reads as expired. */
  async function find(invoiceId: string): Promise<{ row: InvoiceRow; owner: MerchantRow }> {
    let row: InvoiceRow | undefined = await db.selectFrom('invoices').selectAll().where('invoice_id', '=', invoiceId).executeTakeFirst();
    const owner = row && (await findMerchant(db, row.merchant_id));
    if (!row || !owner) throw new ServiceError('not_found', 'No such invoice.');
    const now = clock.now();
    if (row.status === 'pending' && Number(row.expires_at) <= now) {
      await engine.expireIfLapsed(row.merchant_id, invoiceId, now);
      row = (await findInvoice(db, row.merchant_id, invoiceId))!;
    }
    return { row, owner };
  }

  return {
    find,

    async checkoutView(invoiceId: string) {
      const { row, owner } = await find(invoiceId);
      const explorers = Object.fromEntries(
        config.chainDefinitions.map((definition) => [definition.chain, definition.merchant.explorerUrl(settingsOf(config.chains, definition.chain), row.network)]),
      );
      return checkoutView(db, row, { chains: config.chainDefinitions, shopName: owner.shop_name, explorers, now: clock.now(), x402Url: deps.x402Url });
    },
  };
}

export type PublicInvoices = ReturnType<typeof createPublicInvoices>;
