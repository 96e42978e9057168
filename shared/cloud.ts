import * as z from 'zod';
import { rateSourcesHealthField } from './prices.ts';
import { ChainSourceBudget, WatcherProblem } from './health.ts';
import { chainNames } from './chains.ts';
import { AssetId } from './assets.ts';
import { X402Health } from './x402.ts';
import { BaseFixedInvoiceCreated, BaseInvoice, BaseXpubInvoiceCreated, BtcInvoice, BtcInvoiceCreated, InvoiceStatus, memoOnEveryChain, orderFieldsShape } from './invoice.ts';
import { deprecatedField, deprecations } from './deprecated.ts';
import { OptInWebhookEvent } from './webhooks.ts';

const dateTime = () => z.iso.datetime();
export const PlanName = z.enum(['free', 'starter', 'pro']);

const webhookEvents = z
  .array(OptInWebhookEvent)
  .describe('The opt-in events sent besides `invoice.confirmed` and `payment.orphan`, each once per invoice; empty: only those two.');

export const SHOP_NAME_MIN = 2;
export const SHOP_NAME_MAX = 80;

export const ReceiveMethod = z
  .object({
    chain: z.enum(chainNames),
    xpub: z.string().optional().describe("The account public key: Bitcoin's BIP-84 key (btc), or an EVM account key at m/44'/60'/0' (any EVM chain)."),
    address: z.string().optional().describe('EVM chains only: a fixed EIP-55 checksummed 0x receive address (fixed-address mode, needed for USDT).'),
  })
  .meta({ id: 'ReceiveMethod', description: 'How the merchant receives on one chain: an xpub, a fixed address (EVM chains), or both (EVM: USDC per address, USDT at the fixed one).' });

export const signupDeprecations = deprecations('POST /api/v1/signup', {
  btc_xpub: 'a `receive_methods` entry `{"chain": "btc", "xpub": …}`',
  base_xpub: 'a `receive_methods` entry `{"chain": "base", "xpub": …}`',
  base_address: 'a `receive_methods` entry `{"chain": "base", "address": …}`',
});

export const SignupRequest = z
  .object({
    email: z.string().describe('Required; one account per email.'),
    shop_name: z.string().describe(`Required; ${SHOP_NAME_MIN}-${SHOP_NAME_MAX} characters; shown on hosted checkout.`),
    btc_xpub: deprecatedField(signupDeprecations.btc_xpub, z.string().optional(), 'Bitcoin BIP-84 account public key (xpub/zpub, tpub/vpub).'),
    base_xpub: deprecatedField(signupDeprecations.base_xpub, z.string().optional(), "Base only: EVM account public key at m/44'/60'/0'; wins over base_address if both are sent."),
    base_address: deprecatedField(signupDeprecations.base_address, z.string().optional(), 'Base only: fixed EIP-55 checksummed 0x receive address (fixed-address mode, needed for USDT).'),
    receive_methods: z
      .array(ReceiveMethod)
      .optional()
      .describe('One entry per chain the account receives on (any chain of POST /invoice). The deprecated `btc_xpub`, `base_xpub` and `base_address` say the same for `btc` and `base` only and are still accepted; an entry here wins over them for its chain.'),
    webhook_url: z.string().optional().describe('https, default port, host resolving only to public addresses.'),
    lightning_nwc_url: z
      .string()
      .optional()
      .describe(
        "Your own Lightning wallet: a receive-only Nostr Wallet Connect URI (`nostr+walletconnect://…`, `wss://` relays). Checked before the account is stored: the wallet must answer and must not let the connection spend. Bitcoin invoices then carry a BOLT11 invoice too, or are Lightning-only without a Bitcoin key. Stored as a secret: never returned.",
      ),
  })
  .meta({ id: 'SignupRequest', description: 'Body of POST /api/v1/signup. At least one receive method (or a Lightning connection) is required.' });

export const SignupResponse = z
  .object({
    merchant_id: z.string(),
    plan: z.literal('free'),
    api_key: z.string().describe('Shown once; only its hash is stored. Send it as X-Service-Api-Key.'),
    key_prefix: z.string().describe('The first characters of the key, to recognise it later.'),
    webhook_secret: z.string().optional().describe('Shown once; present only when webhook_url was sent.'),
  })
  .meta({ id: 'SignupResponse' });

export const LightningConnectionView = z
  .object({
    wallet: z.string().describe("The wallet's Nostr key, shortened: first 8 and last 4 characters."),
    relays: z.array(z.string()).describe('The relays the connection speaks through.'),
    network: z.string().describe('The Bitcoin network the wallet said it is on.'),
    problem: z
      .object({ reason: z.string(), since: dateTime() })
      .nullable()
      .optional()
      .describe(
        "Why the service could not use this connection at its last try (the wallet did not answer, answered an invoice that failed the checks, or the connection has come to allow spending or lost a receiving method), and since when; null while it works. Meanwhile Bitcoin invoices go out on-chain only. Absent from services released before it.",
      ),
  })
  .meta({ id: 'LightningConnectionView', description: "The merchant's Lightning wallet connection as it may be shown: never its secret." });

export const LightningSettingRequest = z
  .object({
    nwc_url: z
      .string()
      .nullable()
      .describe('A receive-only Nostr Wallet Connect URI from your own wallet (checked: it must answer and must not let the connection spend); null removes Lightning.'),
  })
  .strict()
  .meta({ id: 'LightningSettingRequest' });
export const LightningSettingResponse = z.object({ lightning: LightningConnectionView.nullable() }).meta({ id: 'LightningSettingResponse' });

export const Account = z
  .object({
    merchant_id: z.string(),
    shop_name: z.string(),
    email: z.string(),
    plan: PlanName.describe('A paid plan whose period ended reads as free.'),
    plan_expires_at: dateTime().nullable().describe('null on Free.'),
    usage: z.object({
      invoices_this_month: z.number().int().describe('Invoices created this calendar month (UTC).'),
      monthly_limit: z.number().int(),
    }),
    chains: z.array(
      z.object({
        chain: z.enum(chainNames),
        mode: z.enum(['xpub', 'fixed-address']),
        xpub: z.string().nullable().describe('Shortened for display: first 8 and last 4 characters.'),
        fixed_address: z.string().nullable(),
      }),
    ),
    enabled_assets: z
      .array(AssetId)
      .describe('The assets POST /api/v1/invoice accepts for this merchant now: what its receive methods enable (USDT needs a fixed address), in the contract\'s order. The stdio MCP server reads it.'),
    webhook_url: z.string().nullable(),
    webhook_events: webhookEvents,
    lightning: LightningConnectionView.nullable()
      .optional()
      .describe('Your Lightning wallet connection (shortened; never its secret); null when none. Absent only from services released before Lightning.'),
    api_keys: z.array(
      z.object({
        prefix: z.string(),
        label: z.string(),
        created_at: dateTime(),
        revoked: z.boolean(),
        scopes: z.array(z.enum(['invoices:read', 'invoices:write'])).nullable().describe('null: full access; else what the key may do (see POST /api/v1/keys).'),
      }),
    ),
    created_at: dateTime(),
  })
  .meta({ id: 'Account', description: 'GET /api/v1/me. Carries no secret.' });

export const PlanCatalogue = z
  .object({
    plans: z.array(
      z.object({ plan: PlanName, invoices_per_month: z.number().int(), price_usd_per_month: z.number() }),
    ),
    payment_methods: z.array(z.enum(['crypto', 'card'])),
    transaction_fee: z.number(),
  })
  .meta({ id: 'PlanCatalogue', description: 'GET /api/v1/plans.' });

export const InvoiceListEntry = z
  .object({
    invoice_id: z.string(),
    chain: z.string(),
    asset: z.string(),
    amount: z.string().describe('Decimal in the asset unit (BTC, or the 6-decimal token amount).'),
    receive_address: z.string(),
    status: InvoiceStatus,
    tx_hash: z.string().nullable(),
    created_at: dateTime(),
    paid_at: dateTime().nullable(),
    expires_at: dateTime(),
    ...orderFieldsShape,
    ...memoOnEveryChain,
    checkout_url: z.string().optional().describe('Cloud: the hosted payment page, as in the create answer; present when hosted checkout is enabled.'),
  })
  .meta({ id: 'InvoiceListEntry' });
export const InvoiceList = z
  .object({
    invoices: z.array(InvoiceListEntry),
    next_cursor: z
      .string()
      .nullable()
      .optional()
      .describe('Pass as `cursor` for the next page; null on the last page. Absent only from servers released before it.'),
  })
  .meta({ id: 'InvoiceList', description: 'Most recent first (by creation time, then invoice id).' });

export const CreateKeyRequest = z
  .object({
    label: z.string().describe('1-60 characters, to tell keys apart.'),
    scopes: z
      .array(z.enum(['invoices:read', 'invoices:write']))
      .optional()
      .describe('Absent: a full-access key. `["invoices:read"]`: read-only (read invoices, list them, wait for payment). `["invoices:write"]`: create-only. Both: invoices only, no account settings.'),
  })
  .meta({ id: 'CreateKeyRequest' });
export const CreatedKey = z
  .object({
    api_key: z.string().describe('Shown once; only its hash is stored.'),
    key_prefix: z.string(),
    label: z.string(),
    scopes: z.array(z.enum(['invoices:read', 'invoices:write'])).nullable().describe('null: full access.'),
  })
  .meta({ id: 'CreatedKey' });

export const WebhookSettingRequest = z
  .object({
    webhook_url: z.string(),
    webhook_events: webhookEvents.optional().describe('The opt-in events to receive (replacing the ones saved); absent: the saved ones stay. An unknown name: 400 `unknown_webhook_event`.'),
  })
  .meta({ id: 'WebhookSettingRequest' });
export const WebhookSettingResponse = z
  .object({
    webhook_url: z.string(),
    webhook_secret: z.string().describe('New signing secret, shown once; the previous one stops signing.'),
    webhook_events: webhookEvents,
  })
  .meta({ id: 'WebhookSettingResponse' });

export const BillingCheckoutRequest = z
  .object({
    plan: z.string().describe('`starter` or `pro`.'),
    method: z.string().optional().describe('`crypto` (default) or `card`; must be listed in payment_methods of GET /api/v1/plans.'),
  })
  .meta({ id: 'BillingCheckoutRequest' });
export const BillingCheckoutResponse = z
  .object({
    subscription_id: z.string(),
    method: z.enum(['crypto', 'card']),
    plan: z.enum(['starter', 'pro']),
    amount_usd: z.number(),
    invoice_id: z.string().optional().describe('crypto only: the Base stablecoin invoice that pays the plan.'),
    checkout_url: z.string().describe('The hosted payment page (the invoice page for crypto, the card processor page for card).'),
  })
  .meta({ id: 'BillingCheckoutResponse' });

const withCheckoutUrl = { checkout_url: z.string().optional().describe('Hosted payment page; present when hosted checkout is enabled.') };
export const CloudCreatedInvoice = z
  .union([BtcInvoiceCreated.extend(withCheckoutUrl), BaseXpubInvoiceCreated.extend(withCheckoutUrl), BaseFixedInvoiceCreated.extend(withCheckoutUrl)])
  .meta({ id: 'CloudCreatedInvoice', description: 'POST /api/v1/invoice: the listener invoice plus checkout_url.' });
export const CloudStoredInvoice = z
  .union([BtcInvoice.extend(withCheckoutUrl), BaseInvoice.extend(withCheckoutUrl)])
  .meta({ id: 'CloudStoredInvoice', description: 'GET /api/v1/invoice/{id}: the stored invoice plus checkout_url, as the create answer carried it.' });

export const CloudHealth = z
  .object({
    ok: z.boolean().describe('True when the database answers and no chain watcher of this instance has a problem.'),
    service: z.string(),
    ts: dateTime(),
    chain_sources: z
      .array(ChainSourceBudget)
      .optional()
      .describe('Per chain source URL this instance watches (shared by all merchants): requests made, 429s received, when the next request is allowed.'),
    problems: z
      .array(WatcherProblem)
      .optional()
      .describe('The database while it cannot be used (`component: database`), and chain watchers stalled or failing for several poll intervals, per chain and kind, with how many merchants; empty when none (an instance that is not the elected watcher has no watcher problems).'),
    rate_sources: rateSourcesHealthField,
    x402: X402Health.optional().describe('Present when some EVM chain takes x402 payments.'),
  })
  .meta({ id: 'CloudHealth', description: 'GET /api/v1/health.' });
