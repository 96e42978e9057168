import { settingsOf, type ConfiguredChain } from '../core/chain-definition.ts';
import type { Kysely } from 'kysely';
import { INVOICE_LIST_DEFAULT, INVOICE_LIST_MAX, type NumberTexts } from '../shared/index.ts';
import type { Clock } from '../core/clock.ts';
import type { CloudTables } from './storage/cloud.tables.ts';
import { ServiceError } from '../core/errors.ts';
import { findInvoice, type InvoiceRow } from '../core/invoices/invoice.repository.ts';
import type { InvoiceEngine } from '../core/invoices/invoice.service.ts';
import { accountView } from './merchants/account-view.ts';
import { newApiKey } from './keys/api-keys.ts';
import { newWebhookSecret } from '../core/webhooks/signature.ts';
import { openCardPortal, paymentMethods, startCheckout, type BillingDeps } from './billing/billing.ts';
import { findCardSubscription } from './billing/card-subscription.ts';
import type { CloudConfig } from './cloud-config.ts';
import { checkoutView, type ViewContext } from '../edge/checkout/checkout-view.ts';
import { listEntry } from './invoices/invoice-views.ts';
import { enabledAssets } from '../core/enabled-assets.ts';
import type { createMerchantReceivers } from './merchants/merchant-context.ts';
import { findMerchant, insertApiKey, listApiKeys, revokeApiKey, saveWebhook, type MerchantRow } from './merchants/merchant.repository.ts';
import { effectivePlan, planCatalogue, planOf, usageMonth, type PlanName } from './billing/plans.ts';
import { signup } from './merchants/signup.ts';
import { countInvoice, invoicesThisMonth } from './billing/usage.ts';
import { checkWebhookUrl, type WebhookTargetPolicy } from '../core/net/webhook-target.ts';
import { listDeliveries, resendDeliveries } from '../core/webhooks/delivery-store.ts';

export interface CloudServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  config: CloudConfig;
  engine: InvoiceEngine;
  receivers: ReturnType<typeof createMerchantReceivers>;
  webhookPolicy: WebhookTargetPolicy;
  billing: Omit<BillingDeps, 'db'>;
  /** The invoices' x402 URLs on the public checkout view (core/x402). */
  x402Url?: ViewContext['x402Url'];
}

/** `limit` of GET /invoices: default 25, anything else clamped to 1-100 (non-numbers read as the default). */
export function clampListLimit(text: unknown): number {
  const n = typeof text === 'string' && /^-?\d+$/.test(text.trim()) ? Number(text) : INVOICE_LIST_DEFAULT;
  return Math.min(INVOICE_LIST_MAX, Math.max(1, n));
}

export function createCloudService(deps: CloudServiceDeps) {
  const { db, clock, config, engine } = deps;
  const checkoutUrl = (invoiceId: string) => (config.checkoutBaseUrl ? `${config.checkoutBaseUrl}/pay/${invoiceId}` : null);
  const planNow = (row: MerchantRow) =>
    effectivePlan({ plan: row.plan as PlanName, expiresAt: row.plan_expires_at === null ? null : Number(row.plan_expires_at) }, clock.now()).plan;

  /** Any merchant's invoice by id, for the public pages (checkout, x402); a pending one past its expiry reads as expired. */
  async function publicInvoice(invoiceId: string): Promise<{ row: InvoiceRow; owner: MerchantRow }> {
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

  async function setWebhook(merchant: MerchantRow, body: unknown) {
    const url = (body as { webhook_url?: unknown } | null)?.webhook_url;
    const target = await checkWebhookUrl(url, deps.webhookPolicy);
    const secret = newWebhookSecret();
    await saveWebhook(db, merchant.merchant_id, target.url.href, secret);
    return { webhook_url: target.url.href, webhook_secret: secret };
  }

  return {
    signup: (body: unknown) => signup({ db, clock, webhookPolicy: deps.webhookPolicy }, body),

    async me(merchant: MerchantRow) {
      const now = clock.now();
      const fresh = (await findMerchant(db, merchant.merchant_id)) ?? merchant;
      const [keys, used] = await Promise.all([listApiKeys(db, merchant.merchant_id), invoicesThisMonth(db, merchant.merchant_id, usageMonth(now))]);
      return accountView(fresh, keys, used, now);
    },

    async listInvoices(merchant: MerchantRow, limitText: unknown) {
      const read = () =>
        db
          .selectFrom('invoices')
          .selectAll()
          .where('merchant_id', '=', merchant.merchant_id)
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
      return { invoices: rows.map((row) => listEntry(config.chainDefinitions, row)) };
    },

    async createInvoice(merchant: MerchantRow, body: unknown, numberTexts: NumberTexts) {
      const plan = planNow(merchant);
      const limit = planOf(plan).invoices_per_month;
      const month = usageMonth(clock.now());
      const invoice = await engine.create(
        { merchantId: merchant.merchant_id, receivers: deps.receivers.receivers(merchant).chains, beforeInsert: (trx) => countInvoice(trx, merchant.merchant_id, month, plan, limit) },
        body,
        numberTexts,
      );
      const url = checkoutUrl(invoice.invoice_id);
      return url ? { ...invoice, checkout_url: url } : invoice;
    },

    /** The assets the merchant's stored keys let an invoice be created in, as the listener reports its own. */
    enabledAssets(merchant: MerchantRow) {
      const { chains, evm } = deps.receivers.receivers(merchant);
      // A merchant's receivers stand in for the chains' settings: the assets are what they accept.
      const configured: ConfiguredChain[] = config.chainDefinitions.flatMap((definition) => {
        const settings = definition.facts.family === 'evm' ? evm.find((options) => options.base.chain === definition.chain)?.base : chains[definition.chain];
        return settings ? [{ definition, settings }] : [];
      });
      return enabledAssets(configured);
    },

    getInvoice: (merchant: MerchantRow, invoiceId: string) => engine.get(merchant.merchant_id, invoiceId),

    /** Public: any merchant's invoice by id, display fields only. */
    async checkout(invoiceId: string) {
      const { row, owner } = await publicInvoice(invoiceId);
      const explorers = Object.fromEntries(config.chainDefinitions.map((definition) => [definition.chain, definition.platform.explorerUrl(settingsOf(config.chains, definition.chain), row.network)]));
      return checkoutView(db, row, { shopName: owner.shop_name, explorers, chains: config.chainDefinitions, now: clock.now(), x402Url: deps.x402Url });
    },

    publicInvoice,

    /** The chains the service serves. */
    chains: config.chainDefinitions,

    setWebhook,

    /** A new signing secret for the saved URL (the URL is checked again); the old secret stops at once. */
    async rotateWebhookSecret(merchant: MerchantRow) {
      const fresh = await findMerchant(db, merchant.merchant_id);
      if (!fresh?.webhook_url) throw new ServiceError('invalid_webhook_url', 'Save a webhook URL first.');
      return setWebhook(fresh, { webhook_url: fresh.webhook_url });
    },

    /** The latest webhook deliveries of the merchant, newest first. */
    recentDeliveries: (merchant: MerchantRow, limit = 20) =>
      listDeliveries(db, merchant.merchant_id, ['pending', 'delivered', 'failed'], { newest: limit }),

    /** One more attempt of a delivered or failed event, now; false when there is no such event to re-send. */
    async resendDelivery(merchant: MerchantRow, eventId: string) {
      return (await resendDeliveries(db, merchant.merchant_id, { eventId }, clock.now())).length === 1;
    },

    /**
     * A new key with a label (checked by the caller, see parseKeyLabel), returned this once: only
     * its hash is stored. Keys are named by prefix on the dashboard, so the prefix is unique per merchant.
     */
    async issueApiKey(merchant: MerchantRow, label: string, scopes: string | null = null) {
      const taken = new Set((await listApiKeys(db, merchant.merchant_id)).map((row) => row.prefix));
      let key = newApiKey();
      while (taken.has(key.prefix)) key = newApiKey();
      await insertApiKey(db, { key_hash: key.hash, merchant_id: merchant.merchant_id, prefix: key.prefix, label, revoked: 0, created_at: clock.now(), scopes });
      return { key: key.key, prefix: key.prefix, label, scopes: scopes === null ? null : scopes.split(' ') };
    },

    /** Revokes one of the merchant's own active keys by prefix (never the last one); its sessions end with it. */
    revokeApiKey: (merchant: MerchantRow, prefix: string) => revokeApiKey(db, merchant.merchant_id, prefix),

    checkoutUrl,

    plans() {
      return { plans: [...planCatalogue], payment_methods: paymentMethods(deps.billing), transaction_fee: 0 };
    },

    billingCheckout: (merchant: MerchantRow, body: unknown) => startCheckout({ db, ...deps.billing }, merchant.merchant_id, body, clock.now()),

    /** The running card subscription, and whether the processor offers a page to manage it. */
    async cardSubscription(merchant: MerchantRow) {
      const subscription = await findCardSubscription(db, merchant.merchant_id);
      return subscription && { ...subscription, manageable: Boolean(deps.billing.card?.openPortal && subscription.customerId) };
    },

    cardPortal: (merchant: MerchantRow) => openCardPortal({ db, ...deps.billing }, merchant.merchant_id),
  };
}

export type CloudService = ReturnType<typeof createCloudService>;
