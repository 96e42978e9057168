import type { Kysely } from 'kysely';
import type { AssetId, BtcGapReport, ChainFacts, ChainName, CheckoutView } from '../../shared/index.ts';
import type { CoreTables } from '../schema.ts';
import type { ServiceError } from '../errors.ts';
import type { MerchantChain } from '../merchant-chain.ts';
import type { ChainAdapter } from './chain-adapter.ts';
import type { ChainDisplay } from './chain-display.ts';
import type { LocalNode } from './local-node.ts';
import type { SandboxPayment } from './sandbox-payment.ts';
import type { InvoiceRow } from './invoice.repository.ts';

/** What a checkout page is built with besides the row: the shop, the clock, what was paid, the chain's explorer. */
export interface CheckoutContext {
  shopName: string;
  now: number;
  /** Base units (sats, token units) seen toward the invoice so far, at any number of confirmations. */
  paid: bigint;
  /** Block-explorer base URL of the invoice's chain; null when none is configured. */
  explorerUrl: string | null;
}

/** What every edition, the MCP server and the checkout page need to know of one chain, whatever its family. */
export interface ChainModule<Settings = unknown> {
  chain: ChainName;
  /** The contract's facts: family, name, amount field, assets. */
  facts: ChainFacts;
  /** Stored-row mapper and expiry guard for the invoice engine. */
  adapter: ChainAdapter;
  /** The assets POST /invoice accepts with these settings. */
  enabledAssets(settings: Settings): AssetId[];
  /** The answer to a request for this chain from a merchant who does not receive on it. */
  disabled(): ServiceError;
  /** Units (sats, token units) seen toward the invoice so far, at any number of confirmations. */
  paidSoFar(db: Kysely<CoreTables>, row: InvoiceRow): Promise<bigint>;
  /** The invoice's amount in its asset's unit, as exact decimal text (invoice lists). */
  amountText(row: InvoiceRow): string;
  /** Units (sats, token units) as the same exact decimal text: what was paid so far, in webhooks. */
  unitsText(units: bigint): string;
  /** The payment URI (BIP-21, EIP-681) asking for `units` of the invoice's asset. */
  paymentUri(row: InvoiceRow, units: bigint): string;
  /** The invoice's checkout page data. */
  checkoutView(row: InvoiceRow, context: CheckoutContext): CheckoutView;
  /** What the payer reads while the payment confirms, naming the network as the page does ("the Base network is confirming it, …"). */
  confirmingTakes(networkName: string): string;
  /** What a multi-merchant platform (Cloud) needs of the chain for its merchants' receive methods. */
  merchant: MerchantChain<any>;
  /** How the checkout page and the MCP texts speak of the chain's invoices. */
  display: ChainDisplay;
  /**
   * For a chain whose wallets find derived addresses by scanning up to a gap limit: how long a run
   * of unused addresses a wallet key has (`service gap`).
   */
  walletGap?(db: Kysely<CoreTables>, keyId: string): Promise<BtcGapReport>;
  /**
   * Whether any merchant receives at `address` on this chain already: a fixed address claimed or a
   * derived invoice's. Start refuses an x402 settler key of such an address (core/x402/settler-key.ts).
   */
  holdsReceiveAddress?(db: Kysely<CoreTables>, address: string): Promise<boolean>;
  /** Whether a setting, when set, means the merchant receives on this chain (the sandbox then stays off). */
  claimsSetting(name: string): boolean;
  /** How the sandbox runs the chain on a local development node; absent for a chain it simulates otherwise. */
  localNode?: LocalNode;
  /** How `service pay` pays the chain's invoices from the sandbox. */
  sandboxPayment: SandboxPayment;
}

/** The chain of `name` among `chains`; a name none of them has is a programming error (rows and views only carry chains the service runs). */
export function chainNamed<Chain extends { chain: string }>(chains: readonly Chain[], name: string): Chain {
  const found = chains.find((entry) => entry.chain === name);
  if (!found) throw new Error(`no chain module for ${name}`);
  return found;
}
