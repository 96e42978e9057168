import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.ts';
import type { InvoiceEngine } from '../core/invoices/invoice.service.ts';
import type { WebhookTargetPolicy } from '../core/net/webhook-target.ts';
import type { ViewContext } from '../edge/checkout/checkout-view.ts';
import type { CloudConfig } from './cloud-config.ts';
import type { ChainWithMerchants, LightningPlatform } from '../core/merchant-chain.ts';
import type { CloudTables } from './storage/cloud.tables.ts';
import type { BillingDeps } from './billing/billing.ts';
import { createBillingService } from './billing/billing-service.ts';
import { createInvoiceService } from './invoices/invoice-service.ts';
import { createPublicInvoices } from './invoices/public-invoices.ts';
import { createWebhookService } from './invoices/webhook-service.ts';
import { createKeyService } from './keys/key-service.ts';
import { createAccountService } from './merchants/account-service.ts';
import type { createMerchantReceivers } from './merchants/merchant-context.ts';

export interface CloudServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  config: CloudConfig;
  /** The chains Cloud serves, in the contract's order. */
  chains: readonly ChainWithMerchants[];
  engine: InvoiceEngine;
  receivers: ReturnType<typeof createMerchantReceivers>;
  webhookPolicy: WebhookTargetPolicy;
  billing: Omit<BillingDeps, 'db'>;
  /** Lightning through each merchant's own wallet; null where the platform's chains take none. */
  lightning: LightningPlatform | null;
  /** The invoices' x402 URLs on the public checkout view (core/x402). */
  x402Url?: ViewContext['x402Url'];
}

/** What Cloud does, by concern; its HTTP routes, dashboard and MCP tools each call the parts they serve. */
export function createCloudService(deps: CloudServiceDeps) {
  return {
    accounts: createAccountService(deps),
    keys: createKeyService(deps),
    invoices: createInvoiceService(deps),
    publicInvoices: createPublicInvoices(deps),
    webhooks: createWebhookService(deps),
    billing: createBillingService(deps),
  };
}

export type CloudService = ReturnType<typeof createCloudService>;
