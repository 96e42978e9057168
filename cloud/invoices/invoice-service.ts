import type { Kysely } from 'kysely';
import { INVOICE_LIST_DEFAULT, INVOICE_LIST_MAX, type NumberTexts } from '../../shared/index.ts';
import type { Clock } from '../../core/clock.ts';
import type { InvoiceEngine } from '../../core/invoices/invoice.service.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { CloudConfig } from '../cloud-config.ts';
import { effectivePlan, planOf, usageMonth, type PlanName } from '../billing/plans.ts';
import { countInvoice } from '../billing/usage.ts';
import type { createMerchantReceivers } from '../merchants/merchant-context.ts';
import type { MerchantRow } from '../merchants/merchant.repository.ts';
import { listEntry, withCheckoutUrl } from './invoice-views.ts';

export interface InvoiceServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  config: Pick<CloudConfig, 'checkoutBaseUrl' | 'chainDefinitions'>;
  engine: InvoiceEngine;
  receivers: ReturnType<typeof createMerchantReceivers>;
}

/** `limit` of GET /invoices: default 25, anything else clamped to 1-100 (non-numbers read as the default). */
export function clampListLimit(text: unknown): number {
  const n = typeof text === 'string' && /^-?\d+$/.test(text.trim()) ? Number(text) : INVOICE_LIST_DEFAULT;
  return Math.min(INVOICE_LIST_MAX, Math.max(1, n));
}

/** A merchant's own invoices: created within the plan's monthly allowance, listed, read. */
export function createInvoiceService(deps: InvoiceServiceDeps) {
  const { db, clock, config, engine } = deps;
  const checkoutUrl = (invoiceId: string) => (config.checkoutBaseUrl ? `${config.checkoutBaseUrl}/pay/${invoiceId}` : null);
  const planNow = (row: MerchantRow) =>
    effectivePlan({ plan: row.plan as PlanName, expiresAt: row.plan_expires_at === null ? null : Number(row.plan_expires_at) }, clock.now()).plan;

  return {
    /** `orderId`: only the invoices created with that order reference (several may share one). */
    async list(merchant: MerchantRow, limitText: unknown, orderId?: string) {
      const read = () =>
        db
          .selectFrom('invoices')
          .selectAll()
          .where('merchant_id', '=', merchant.merchant_id)
          .$if(orderId !== undefined, (query) => query.where('order_id', '=', orderId!))
          .orderBy('created_at', 'desc')
          .orderBy('invoice_id', 'desc')
          .limit(clampListLimit(limitText))
          .execute();
      const now = clock.now();
      let rows = await read();
      const lapsed = rows.filter((row) => row.status === 'pending' && Number(row.expires_at) <= now);
      if (lapsed.length) {
        for (const row of lapsed) await engine.expireIfLapsed(merchant.merchant_id, row.invoice_id, now);
        rows = await read();
      }
      return { invoices: rows.map((row) => listEntry(deps.config.chainDefinitions, row)) };
    },

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

    get: async (merchant: MerchantRow, invoiceId: string) => withCheckoutUrl(await engine.get(merchant.merchant_id, invoiceId), checkoutUrl),

    checkoutUrl,
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
