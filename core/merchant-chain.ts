import type { Kysely, Transaction } from 'kysely';
import type { Clock } from './clock.ts';
import type { StatusFeed } from './invoices/status-feed.ts';
import type { Logger } from './log.ts';
import type { WatcherProblem } from './watch-progress.ts';
import type { AssetId, ChainName } from '../shared/index.ts';
import type { ChainReceiver } from './invoices/chain-adapter.ts';
import type { CoreTables } from './schema.ts';
import type { Resolver } from './net/webhook-target.ts';

/** How a merchant receives on one chain, as registered: an account xpub, a fixed address, or both. */
export interface ReceiveMethodKeys {
  xpub: string | null;
  address: string | null;
}

/** The instance's parts a chain builds its merchants' receivers with. */
export interface MerchantChainParts {
  /** The chain's process-wide worker (Bitcoin's address deriver), for chains that have one. */
  worker(): unknown;
  /** Whether several instances share the database (Postgres): a per-instance buffer of addresses would derive every index on each. */
  sharedDatabase: boolean;
  /** Bound of any cache the chain keeps per key. */
  maxEntries: number;
}

/** One merchant's way of receiving on a chain, and the assets it lets an invoice be created in. */
export interface MerchantReceiver {
  receiver: ChainReceiver;
  assets: AssetId[];
}

/**
 * What a multi-merchant platform (Cloud) needs of one chain for its merchants' receive methods:
 * checking what a merchant registers, the identity of its keys, and its receiver. `Settings` are
 * the chain's platform settings, shared by every merchant.
 */
export interface MerchantChain<Settings = unknown> {
  /**
   * A registered method checked for this chain, in the form it is stored in. Throws ServiceError
   * `invalid_xpub` or `invalid_address`, naming the request's field by `field`.
   */
  checkMethod(method: ReceiveMethodKeys, field: (part: keyof ReceiveMethodKeys) => string): ReceiveMethodKeys;
  /** Whether a text is, or holds, an extended private key this chain's wallets export (a signup refuses it unread). */
  containsPrivateKey(text: string): boolean;
  /**
   * Migration 0009 (key identity): the id a stored xpub's invoices had before (a hash of its text)
   * and the id of its key now; null when they need no move (the chain's ids already were the key's,
   * or the text does not parse).
   */
  keyIdRename(xpub: string): { from: string; to: string } | null;
  /**
   * Claims a merchant's fixed address, inside the signup's transaction; false when a derived
   * invoice holds it. Absent: the chain takes no fixed address (checkMethod refuses one).
   */
  claimFixedAddress?(trx: Transaction<CoreTables>, address: string): Promise<boolean>;
  /** Block-explorer base URL the platform's checkout links an invoice of this chain on `network` to; `settings` null: the platform has none for the chain. */
  explorerUrl(settings: Settings | null, network: string | null): string | null;
  /**
   * The instance's builder of its merchants' receivers on this chain, from the platform's settings
   * of it (it may keep caches shared by merchants). The builder answers null for a method that
   * gives the chain nothing to receive with; it throws when a stored key does not parse.
   */
  receivers(settings: Settings, parts: MerchantChainParts): (method: ReceiveMethodKeys) => MerchantReceiver | null;
  /**
   * Lightning for the platform's merchants, through each merchant's own wallet (Nostr Wallet
   * Connect): absent where the chain has none. Made once per instance; its relay sockets are shared
   * by every merchant.
   */
  lightning?(settings: Settings, parts: LightningPlatformParts): LightningPlatform;
}

/** A merchant's saved Lightning connection, as the platform stores it (the connection text is a secret). */
export interface MerchantLightningConnection {
  merchantId: string;
  connection: string;
  network: string;
}

export interface LightningPlatformParts {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  /**
   * Whether a ws:// relay on a loopback host is taken (outside production only). When false, the
   * relay sockets connect only to public addresses, checked on every (re)connection.
   */
  loopbackRelays: boolean;
  /** How relay hosts are resolved for that check (default: the system's DNS; tests inject their own). */
  resolve?: Resolver;
  /** Every merchant's saved connection (read again at each refresh of the watcher). */
  connections(): Promise<MerchantLightningConnection[]>;
  /** How often the watcher reads the connections again and looks up open invoices (default 15 s). */
  refreshMs?: number;
  /**
   * Told why a merchant's connection could not give an invoice (the wallet silent, a refused check),
   * and null once it gives one again: the platform's stand-in for the listener's /health, per merchant.
   * Called when the outcome changes, and at a wallet's first outcome in this process.
   */
  reportProblem?(merchant: MerchantLightningConnection, problem: string | null): Promise<void>;
}

/** What a connection looks like where it may be shown: the wallet key shortened and the relays, never the secret. */
export interface LightningConnectionSummary {
  wallet: string;
  relays: string[];
}

export interface LightningPlatform {
  /**
   * Parses and checks a connection a merchant saves: it answers get_info, may only receive, and is
   * on a network the platform serves. Throws ServiceError (`invalid_lightning_connection` naming
   * `field` and what to change in the wallet, or `lightning_unavailable` when the wallet is silent).
   */
  check(text: string, field: string): Promise<LightningConnectionSummary & { network: string }>;
  /** A stored connection as it may be shown; null when it no longer parses. */
  describe(text: string): LightningConnectionSummary | null;
  /** The merchant's receiver with Lightning beside `onchain` (or alone, when null), and the assets it adds. */
  receiver(onchain: ChainReceiver | null, merchant: MerchantLightningConnection): MerchantReceiver;
  /** The elected instance's watching of every merchant's Lightning settlements. */
  start(): void;
  stop(): Promise<void>;
  problems(): WatcherProblem[];
  close(): void;
}

/** A chain as a platform's merchant code sees it: its name and its merchant part. */
export interface ChainWithMerchants {
  chain: ChainName;
  merchant: MerchantChain<any>;
}
