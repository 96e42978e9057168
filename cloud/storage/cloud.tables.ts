import type { ColumnType } from 'kysely';
import type { CoreTables } from '../../core/schema.ts';
import type { DashboardSessionsTable } from '../dashboard/session.tables.ts';

/** A Cloud account. Only public receive material is stored: never a private key. */
export interface CloudMerchantsTable {
  merchant_id: string;
  /** Lower-cased; one account per email. */
  email: string;
  shop_name: string;
  btc_xpub: string | null;
  base_xpub: string | null;
  base_address: string | null;
  /**
   * JSON list of the account's receive methods, one per chain (receive-methods.ts); null for
   * accounts stored before there was one, whose btc_xpub / base_xpub / base_address say it.
   */
  receive_methods: ColumnType<string | null, string | null | undefined, string | null>;
  webhook_url: string | null;
  /** The current signing secret; replaced (never kept alongside) on every POST /webhook. */
  webhook_secret: string | null;
  /** The opt-in webhook events subscribed to, space-separated; null: none (migration 0027). */
  webhook_events: ColumnType<string | null, string | null | undefined, string | null>;
  /** The merchant's own Lightning wallet, a receive-only Nostr Wallet Connect URI: a secret like webhook_secret, never returned (migration 0029). */
  lightning_nwc_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The Bitcoin network that wallet said it is on when the connection was saved. */
  lightning_network: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why the service last could not use that connection (a wallet silent, a connection that came to allow spending); null while it works (migration 0030). */
  lightning_problem: ColumnType<string | null, string | null | undefined, string | null>;
  /** Epoch ms since when `lightning_problem` has stood. */
  lightning_problem_since: ColumnType<number | null, number | null | undefined, number | null>;
  /** The plan last paid for; `plan_expires_at` decides whether it is still in force. */
  plan: string;
  plan_expires_at: number | null;
  created_at: number;
}

/** API keys: only the SHA-256 of the key is stored, with its first characters for display. */
export interface CloudApiKeysTable {
  key_hash: string;
  merchant_id: string;
  prefix: string;
  label: string;
  revoked: number;
  created_at: number;
  /** Space-separated (`invoices:read`, `invoices:write`); null: full access, as every key made before scopes. */
  scopes: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Invoices created per merchant and calendar month (UTC, `YYYY-MM`): the plan cap counter. */
export interface CloudUsageTable {
  merchant_id: string;
  month: string;
  invoices: number;
}

/**
 * A plan purchase. Crypto: paid by the operator-owned invoice `invoice_id`; applied once.
 * Card: the Stripe Checkout Session `provider_checkout_id`, then the Stripe subscription it started.
 */
export interface CloudSubscriptionsTable {
  subscription_id: string;
  merchant_id: string;
  plan: string;
  method: string;
  amount_usd: number;
  invoice_id: string | null;
  provider_checkout_id: string | null;
  provider_subscription_id: string | null;
  /** pending → applied (plan extended); a card subscription that Stripe ended → ended */
  status: string;
  created_at: number;
  applied_at: number | null;
  /** Card: the Stripe customer, whose billing portal manages the card and the subscription. */
  provider_customer_id: string | null;
  /** Card: Stripe's subscription status as last reported (`active`, `past_due`, `unpaid`, …). */
  provider_status: string | null;
  /** Card: when the last applied `customer.subscription.updated` was created (epoch ms); older ones are stale. */
  provider_updated_at: number | null;
  /** Card: a cancellation Stripe has scheduled (epoch ms); null when none. */
  cancels_at: number | null;
  /** Card: the last failed charge not since followed by a paid invoice (epoch ms). */
  payment_failed_at: number | null;
  /** Card: when the last paid invoice was reported (epoch ms). */
  last_paid_at: number | null;
}

/** Cloud's database: the core's tables and its own. */
export interface CloudTables extends CoreTables {
  cloud_merchants: CloudMerchantsTable;
  cloud_api_keys: CloudApiKeysTable;
  cloud_usage: CloudUsageTable;
  cloud_subscriptions: CloudSubscriptionsTable;
  cloud_dashboard_sessions: DashboardSessionsTable;
  /** Stripe webhook events already handled: a redelivered event changes nothing. */
  cloud_stripe_events: { event_id: string; type: string; received_at: number };
  /** One sliding window per bucket (an API key, a client IP): the let-through times, comma-separated. */
  cloud_rate_windows: { bucket: string; hits: string; last_hit_at: number };
}
