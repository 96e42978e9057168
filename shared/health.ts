import * as z from 'zod';
import { rateSourcesHealthField } from './prices.ts';
import { AssetId } from './assets.ts';
import { chainFacts, chainList, chainNames, chainSettingList, evmChainNames, type ChainName } from './chains.ts';
import { deprecatedField, deprecations } from './deprecated.ts';
import { X402Health } from './x402.ts';

export const WatcherProgress = z
  .object({
    last_success_at: z.iso.datetime().nullable().describe('When the last pass over the chain finished without error; null before the first.'),
    step: z.string().describe('The step under way (e.g. "following blocks"), or "waiting for the next poll" between passes.'),
    step_since: z.iso.datetime().describe('When that step began.'),
    last_error: z.string().nullable().describe("The last pass's error; null once a pass succeeds again."),
    failing_since: z.iso.datetime().nullable().describe('Since when every pass has failed; null while passes succeed.'),
  })
  .meta({ id: 'WatcherProgress', description: 'What a chain watcher is doing.' });

export const WatcherProblem = z
  .object({
    component: z
      .string()
      .describe(`The watcher: its chain, ${chainList()} (Cloud: for every merchant watcher of it); or \`database\` while the database cannot be used (always \`failing\`).`),
    kind: z
      .enum(['stalled', 'failing', 'disagreeing', 'invalid-source', 'unproven-tip', 'syncing'])
      .describe(
        '`stalled`: one step (a request, a database call, the wait between passes) has been under way longer than the limit; the watcher is stuck and will not recover by itself. `failing`: every pass has failed for longer than the limit, as against a source that is down; it catches up when the source returns. `disagreeing`: within the last hour a source reported a payment or block the chain\'s other sources do not (`reason` names it); nothing it alone reports is counted: check or replace that source. `invalid-source`: at once, a chain source served data that failed verification (Bitcoin: a header without valid proof of work or not linking to the verified chain, a block not matching its header); `reason` names the source and what failed. It is ignored meanwhile, and the problem clears once it serves a valid tip again. `unproven-tip` (Bitcoin): at once, a source claims a tip that does not link to the verified chain (ancestors unknown or not served, or walking back from it used up its request allowance); `reason` names it; it is set aside for a while like an invalid one and the other sources carry the chain. `syncing` (Bitcoin): the header chain is still syncing (a first start, or a catch-up after downtime); `reason` gives the height, the target and an estimate of the time left. Invoices are still created meanwhile; no payment confirms before the sync ends.',
      ),
    reason: z.string().describe('Human-readable: the step and for how long, the last error, or the source and what failed verification.'),
    since: z.iso.datetime().describe('When the stuck step began, or when the passes started failing.'),
  })
  .meta({
    id: 'WatcherProblem',
    description:
      'A chain watcher that has made no progress for several poll intervals (at least 2 minutes), or whose sources disagree (`disagreeing`), or (`component: database`) a database that cannot be used: unreachable, restarting, or (SQLite) full or locked; it clears when a query (SQLite: a write) succeeds again. A slow or rate-limited source whose answers still arrive is not a problem.',
  });

export const BaseHealth = z
  .object({
    rpc_sources: z.number().int().describe(`Independent JSON-RPC sources configured in the chain's own RPC setting: ${chainSettingList('RPC_URL', evmChainNames)}.`),
    rpc_sources_up: z.number().int().describe('Sources that answered on the last poll.'),
    fixed_address_confirming: z
      .boolean()
      .describe('False when fixed-address mode is on with a single RPC source: such invoices then stay pending.'),
    warning: z.string().nullable().describe("Why the chain's payments may not confirm right now, if so."),
    last_block_height: z.number().int().nullable().describe('Last block of the chain whose Transfer logs were read.'),
    head_block_height: z.number().int().nullable().describe('Chain head reported by the scanning source.'),
    watched_addresses: z.number().int(),
    awaiting_second_source: z.number().int().describe('Payments matched but not yet reported by enough independent sources (min_sources; two for fixed-address).'),
    min_sources: z.number().int().optional().describe(`Sources that must report a payment before it counts (the chain's own setting: ${chainSettingList('MIN_SOURCES', evmChainNames)}; default 2); 1 trusts one source as your own node.`),
    disagreeing_sources: z
      .array(z.object({ source: z.string().describe('Scheme, host and port of the source.'), reason: z.string(), at: z.iso.datetime().describe('When it last disagreed.') }))
      .optional()
      .describe('Sources that reported a transfer or a block the others do not, within the last hour: nothing one source alone reports is counted.'),
    progress: WatcherProgress.optional().describe("What the chain's watcher is doing."),
  })
  .meta({ id: 'BaseHealth', description: `The watcher of one EVM chain (${chainList(evmChainNames)}).` });

/** The usual wallet gap limit (BIP-44's 20); most wallets use it unless told otherwise. */
export const DEFAULT_WALLET_GAP_LIMIT = 20;

export const BtcGapReport = z
  .object({
    highest_child_index: z
      .number()
      .int()
      .nullable()
      .describe('Highest child index handed out to an invoice for the current wallet key; null before the first invoice.'),
    highest_paid_child_index: z
      .number()
      .int()
      .nullable()
      .describe('Highest child index with a payment seen (mempool or block; a payment that vanished does not count); null when none.'),
    longest_unused_run: z
      .number()
      .int()
      .describe(
        'Longest run of consecutive unused child indexes below highest_child_index, counted from index 0: runs before the first paid index, between paid ones and after the last one all count.',
      ),
    wallet_gap_limit: z
      .number()
      .int()
      .describe('Gap limit the wallet must use to show every payment to these addresses: longest_unused_run + 1. Above 20 (the usual default) the wallet must be told.'),
  })
  .describe(
    'Unpaid invoices leave unused addresses behind. A wallet scanning from index 0 stops after gap-limit unused addresses in a row and does not show payments beyond them.',
  );
export type BtcGapReport = z.infer<typeof BtcGapReport>;

export const ChainSourceBudget = z
  .object({
    label: z.string().describe('The source: scheme, host and port of its URL (never a path, which may hold an API key).'),
    requests: z.number().int().describe('Requests sent to this source since start (each retry counts).'),
    http_429: z.number().int().describe('HTTP 429 (Too Many Requests) answers received since start.'),
    next_request_at: z.iso
      .datetime()
      .nullable()
      .describe('When the next request is allowed (request budget empty, or a Retry-After or backoff window open); null when one may go now.'),
  })
  .meta({ id: 'ChainSourceBudget', description: 'Request budget of one chain source (docs/chains.md, "Request budgets").' });

export const BtcHeaderSource = z
  .object({
    source: z.string().describe('The Esplora source: scheme, host and port of its URL (never a path, which may hold an API key).'),
    state: z
      .enum(['syncing', 'ok', 'behind', 'invalid', 'unproven-tip', 'unreachable', 'unknown'])
      .describe(
        '`syncing`: the chain is still being brought up to its tip (or it was not asked yet). `ok`: its tip is the best verified tip. `behind`: its tip is a verified header below the best one, or on a lighter branch (slow, or withholding blocks: noticed, not provable). `invalid`: it served a header or block that failed verification and is ignored for a while. `unproven-tip`: the tip it claims does not link to the verified chain (ancestors unknown or not served, or walking back used up its request allowance); ignored for a while like `invalid`. `unreachable`: it did not answer. `unknown`: no longer given (kept for older clients).',
      ),
    tip_height: z.number().int().nullable().describe("Height of the source's tip on the verified chain; null when unknown."),
    problem: z.string().nullable().describe('What is wrong with it, if anything.'),
  })
  .meta({ id: 'BtcHeaderSource' });

export const BtcHeaderChain = z
  .object({
    network: z.string().describe('The Bitcoin network whose consensus rules the headers are checked by.'),
    height: z.number().int().nullable().describe('Height of the best verified header (most cumulative work); null before the first.'),
    target_height: z.number().int().nullable().describe('Highest tip a source claimed; above `height` while the chain syncs.'),
    synced: z.boolean().describe('False during the first sync from the checkpoint: no payment confirms before it ends.'),
    checkpoint_height: z.number().int().describe("Height of the release's checkpoint the chain is verified from (-1: from the genesis block)."),
    estimated_seconds_left: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe('While syncing: seconds left at the pace measured so far; null once synced, or before a pace is known.'),
    warning: z
      .string()
      .nullable()
      .optional()
      .describe("Set when the release's checkpoint is older than 180 days: a first sync then downloads that many more headers (docs/self-hosting.md); upgrade to a newer release."),
    sources: z.array(BtcHeaderSource),
  })
  .meta({
    id: 'BtcHeaderChain',
    description: 'The Bitcoin header chain verified from the release checkpoint (third-party Esplora sources): every confirmation is counted on it.',
  });

const BtcWatch = z
  .object({
    mode: z
      .enum(['full', 'address'])
      .describe('`full`: every new mempool transaction is read (your own node, or an Esplora declared self-hosted); `address`: only the open invoices\' addresses, over the mempool.space WebSocket or polled (a third-party Esplora).'),
    ws_tracked: z.number().int().describe('Addresses the WebSocket tracks now (0 while it is down or in `full` mode); the rest of the open invoices are polled.'),
    live_error: z
      .string()
      .nullable()
      .describe('Last error of the best-effort step (mempool scan or address polls) while it keeps failing; blocks and confirmations go on regardless.'),
  });
const BTC_WATCH = 'How the Bitcoin watcher follows unconfirmed payments (when Bitcoin is watched).';

const BTC_SOURCE_ERROR = 'Last error of the Bitcoin chain source while it keeps failing (retried with backoff); null when healthy.';
const BTC_HEADERS = "The verified header chain and each Esplora source's standing (when Bitcoin is watched through Esplora; absent with your own Bitcoin Core, which is trusted).";
const BTC_GAP = 'Address gap of the Bitcoin wallet key (when Bitcoin is watched): what gap limit the merchant wallet needs to show every payment.';
const BtcSource = z.enum(['esplora', 'bitcoin-core']);

export const BitcoinWatcherHealth = z
  .object({
    source: BtcSource.describe('Which Bitcoin chain source the watcher reads.'),
    source_error: z.string().nullable().describe(BTC_SOURCE_ERROR),
    ws_connected: z.boolean().describe('Whether the chain source push connection (WebSocket) is up.'),
    headers: BtcHeaderChain.optional().describe(BTC_HEADERS),
    watch: BtcWatch.describe('How the watcher follows unconfirmed payments.'),
    gap: BtcGapReport.optional().describe(BTC_GAP),
  })
  .meta({ id: 'BitcoinWatcherHealth', description: 'What only a Bitcoin watcher reports.' });

export const ChainHealth = z
  .object({
    family: z.enum(['bitcoin', 'evm']).describe('Which of the parts below the entry carries: `bitcoin` or `evm`.'),
    watched_addresses: z.number().int().describe("Addresses the chain's watcher follows."),
    last_event_at: z.iso.datetime().nullable().describe('When the chain source last reported anything; null before the first.'),
    last_block_height: z.number().int().nullable().describe('Height of the last processed block; null before the first.'),
    progress: WatcherProgress.describe("What the chain's watcher is doing."),
    bitcoin: BitcoinWatcherHealth.optional().describe('Bitcoin only.'),
    evm: BaseHealth.optional().describe('EVM chains only.'),
  })
  .meta({ id: 'ChainHealth', description: "One chain's watcher, in the same shape for every chain: the common fields, then its family's part." });
export type ChainHealth = z.infer<typeof ChainHealth>;

const chainEntryDescription = (chain: ChainName) =>
  chainFacts[chain].family === 'evm'
    ? `${chainFacts[chain].name}, when configured (RPC sources in \`${chainFacts[chain].settingsPrefix}_RPC_URL\`).`
    : `${chainFacts[chain].name}, when configured.`;

/** /health `chains`: one entry per configured chain, keyed by chain name. */
export const ChainsHealth = z
  .object(Object.fromEntries(chainNames.map((chain) => [chain, ChainHealth.optional().describe(chainEntryDescription(chain))])) as Record<ChainName, z.ZodOptional<typeof ChainHealth>>)
  .describe(`Every configured chain's watcher (${chainList()}), keyed by chain, each in the same shape (an addition to the spec's Health).`);

export const healthDeprecations = deprecations('GET /health', {
  btc_source: '`chains.btc.bitcoin.source`',
  btc_source_error: '`chains.btc.bitcoin.source_error`',
  btc_progress: '`chains.btc.progress`',
  btc_headers: '`chains.btc.bitcoin.headers`',
  btc_watch: '`chains.btc.bitcoin.watch`',
  btc_gap: '`chains.btc.bitcoin.gap`',
  base: '`chains.base.evm`',
  evm_chains: '`chains.<chain>.evm`',
});

export const LightningRelayHealth = z
  .object({
    relay: z.string(),
    connected: z.boolean(),
    listeners: z.number().int().describe('Wallet connections listening through this relay socket.'),
    subscriptions: z.number().int().describe('Subscriptions (REQs) open on it; connections are folded into a bounded number.'),
    problem: z.string().nullable().describe('Why it does not serve now: down and being retried, or cut off for flooding or sending garbage.'),
    cut_offs: z.number().int().describe('Times it was cut off for flooding or garbage since the start.'),
  })
  .meta({ id: 'LightningRelayHealth' });

export const LightningHealth = z
  .object({
    wallet: z.string().describe('The wallet connection, shortened (its key and relays; never the secret).'),
    ready: z.boolean().describe('Whether the wallet answered and was checked receive-only since the start.'),
    problem: z.string().nullable().describe('The last failure: the wallet silent or refused, an invoice that failed its checks, a settlement refused; null when none.'),
    refused_settlements: z.number().int().describe('Settlements reported without a preimage that hashes to the payment hash, refused since the start.'),
    relays: z.array(LightningRelayHealth),
  })
  .meta({ id: 'LightningHealth', description: "The merchant's Lightning wallet over Nostr Wallet Connect." });
export type LightningHealth = z.infer<typeof LightningHealth>;

export const Health = z
  .object({
    ok: z
      .boolean()
      .describe('True when the listener serves requests, its database answers and no chain watcher has a problem (see `problems`).'),
    problems: z
      .array(WatcherProblem)
      .optional()
      .describe('Why `ok` is false: a chain watcher stalled or failing for several poll intervals, or the database that cannot be used (`component: database`). Empty when none.'),
    ws_connected: z.boolean().describe('Whether the chain source push connection (WebSocket) is up.'),
    subscribed_count: z
      .number()
      .int()
      .describe(`Number of watched addresses. Like last_event_at and last_block_height, of the first configured chain in the order ${chainList()}; every chain's figures are in \`chains\`.`),
    last_event_at: z.iso.datetime().nullable().describe('When the chain source last reported anything (the first configured chain, as `subscribed_count`).'),
    last_block_height: z.number().int().nullable().describe('Height of the last processed block (the first configured chain, as `subscribed_count`).'),
    uptime_s: z.number().describe('Seconds since the listener started.'),
    chains: ChainsHealth.optional(),
    btc_source: deprecatedField(healthDeprecations.btc_source, BtcSource.optional(), 'Which Bitcoin chain source the listener reads (when Bitcoin is configured).'),
    btc_source_error: deprecatedField(healthDeprecations.btc_source_error, z.string().nullable().optional(), BTC_SOURCE_ERROR),
    btc_progress: deprecatedField(healthDeprecations.btc_progress, WatcherProgress.optional(), 'What the Bitcoin watcher is doing (when Bitcoin is watched).'),
    btc_headers: deprecatedField(healthDeprecations.btc_headers, BtcHeaderChain.optional(), BTC_HEADERS),
    btc_watch: deprecatedField(healthDeprecations.btc_watch, BtcWatch.optional(), BTC_WATCH),
    btc_gap: deprecatedField(healthDeprecations.btc_gap, BtcGapReport.optional(), BTC_GAP),
    webhooks: z
      .object({
        queued: z.number().int().describe('Events waiting for their first delivery attempt.'),
        failing: z.number().int().describe('Events not yet acknowledged after at least one attempt; retries follow.'),
        failed: z.number().int().describe('Events that gave up after the last attempt; re-send with `service deliveries resend`.'),
      })
      .describe('Webhook delivery backlog.'),
    enabled_assets: z
      .array(AssetId)
      .optional()
      .describe('Assets this listener accepts invoices for, from its configuration. Extension beyond the spec; the MCP server reads it.'),
    base: deprecatedField(healthDeprecations.base, BaseHealth.optional(), 'Base\'s watcher, present when Base is configured.'),
    evm_chains: deprecatedField(
      healthDeprecations.evm_chains,
      z.partialRecord(z.enum(evmChainNames), BaseHealth).optional(),
      `Per EVM chain configured (${chainList(evmChainNames)}): its watcher, in the fields of \`base\`.`,
    ),
    chain_sources: z
      .array(ChainSourceBudget)
      .optional()
      .describe('Per chain source (Esplora, Bitcoin Core, each RPC URL of an EVM chain): requests made, 429s received, when the next request is allowed.'),
    rate_sources: rateSourcesHealthField,
    x402: X402Health.optional().describe('Present when some EVM chain takes x402 payments.'),
    lightning: LightningHealth.optional().describe('Present when Bitcoin invoices take Lightning (MERCHANT_NWC_URL).'),
  })
  .meta({ id: 'Health', description: 'GET /health. Further fields may be added; never rely on their absence.' });
export type Health = z.infer<typeof Health>;
