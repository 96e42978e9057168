import type { Kysely } from 'kysely';
import type { NumberTexts } from '../../shared/index.ts';
import type { Clock } from '../../core/clock.ts';
import type { InvoiceEngine } from '../../core/invoices/invoice.service.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { CloudConfig } from '../cloud-config.ts';
import { effectivePlan, planOf, usageMonth, type PlanName } from '../billing/plans.ts';
import { countInvoice } from '../billing/usage.ts';
import type { createMerchantReceivers } from '../merchants/merchant-context.ts';
import type { MerchantRow } from '../merchants/merchant.repository.ts';
import { withCheckoutUrl } from './invoice-views.ts';
import { createInvoiceLists } from '../../core/invoices/invoice-list.ts';
import { exportSlots } from '../../edge/http/invoice-list-endpoint.ts';

export interface InvoiceServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  config: Pick<CloudConfig, 'checkoutBaseUrl' | 'chainDefinitions'>;
  engine: InvoiceEngine;
  receivers: ReturnType<typeof createMerchantReceivers>;
}

/** A merchant's own invoices: created within the plan's monthly allowance, listed, read. */
export function createInvoiceService(deps: InvoiceServiceDeps) {
  const { db, clock, config, engine } = deps;
  const checkoutUrl = (invoiceId: string) => (config.checkoutBaseUrl ? `${config.checkoutBaseUrl}/pay/${invoiceId}` : null);
  const planNow = (row: MerchantRow) =>
    effectivePlan({ plan: row.plan as PlanName, expiresAt: row.plan_expires_at === null ? null : Number(row.plan_expires_at) }, clock.now()).plan;

  return {
    /** Finding the merchants' invoices: each entry, and each export's last column, carries the checkout_url the create answer did. */
    lists: createInvoiceLists({ db, clock, chains: config.chainDefinitions, expireIfLapsed: engine.expireIfLapsed, extra: [{ name: 'checkout_url', value: (row) => checkoutUrl(row.invoice_id) }] }),

    /** The merchants' running CSV exports, over the API and the dashboard alike. */
    exports: exportSlots(),

    async create(merchant: MerchantRow, body: unknown, numberTexts: NumberTexts) {
      const plan = planNow(merchant);
      const limit = planOf(plan).invoices_per_month;
      const month = usageMonth(clock.now());
      const invoice = await engine.create(
        { merchantId: merchant.merchant_id, receivers: deps.receivers.receivers(merchant).chains, beforeInsert: (trx) => countInvoice(trx, merchant.merchant_id, month, plan, limit) },
        body,
        numberTexts,
      );
      return withCheckoutUrl(invoice, checkoutUrl);
    },

    /** The assets the merchant's stored keys let an invoice be created in, as the listener reports its own. */
    enabledAssets: (merchant: MerchantRow) => deps.receivers.receivers(merchant).assets,

    /** Whether the merchant's Bitcoin invoices can only be paid over Lightning (a wallet connected, no Bitcoin key). */
    lightningOnly: (merchant: MerchantRow) => deps.receivers.receivers(merchant).lightningOnly,

    get: async (merchant: MerchantRow, invoiceId: string) => withCheckoutUrl(await engine.get(merchant.merchant_id, invoiceId), checkoutUrl),

    checkoutUrl,
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
