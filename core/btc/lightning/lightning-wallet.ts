import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { CoreTables } from '../../schema.ts';
import { Bolt11Refused, checkBolt11 } from './bolt11-check.ts';
import { createNwcClient, type NwcClient, type NwcWalletInfo } from './nwc-client.ts';
import { describeNwcConnection, type NwcConnection } from './nwc-connection.ts';
import type { RelayPool } from './relay-pool.ts';
import { connectionRefusal } from './wallet-permissions.ts';

/** A BOLT11 invoice the merchant's wallet issued and the service checked. */
export interface IssuedInvoice {
  bolt11: string;
  paymentHash: string;
}

/** Why a connection cannot be used (it may spend, lacks a method, its wallet is on another network). */
export class LightningConnectionRefused extends Error {}

export interface LightningWalletOptions {
  db: Kysely<CoreTables>;
  pool: RelayPool;
  clock: Clock;
  logger: Logger;
  /** The Bitcoin network the merchant's invoices are on; the wallet's invoices must carry its prefix. */
  network: string;
  /** The setting the connection came from, named in every refusal (MERCHANT_NWC_URL, the dashboard's field). */
  setting: string;
  /** How long make_invoice may take before the invoice goes on without Lightning. */
  issueTimeoutMs?: number;
}

/** How long an answer from the wallet may take when checking the connection at start or on save. */
const CHECK_TIMEOUT_MS = 10_000;
const DEFAULT_ISSUE_TIMEOUT_MS = 4_000;
/** How long a passed check stands: permissions can be widened in the wallet later, so it is asked again. */
const CHECK_STANDS_MS = 60 * 60_000;
/** How long a refusal stands before the wallet is asked again (the merchant may have narrowed the connection). */
const REFUSAL_STANDS_MS = 5 * 60_000;

/**
 * One merchant's own Lightning wallet over Nostr Wallet Connect: checked to be receive-only before its
 * first invoice and again every hour (a refused one every five minutes), asked for a BOLT11 invoice
 * per invoice, each checked (amount, payment hash, expiry, and the node that signed it, pinned at the
 * first invoice and stored, so a swapped node is caught after a restart).
 */
export function createLightningWallet(connection: NwcConnection, options: LightningWalletOptions) {
  const { db, clock, logger } = options;
  const client: NwcClient = createNwcClient(connection, { pool: options.pool, clock });
  const issueTimeoutMs = options.issueTimeoutMs ?? DEFAULT_ISSUE_TIMEOUT_MS;
  let lastProblem: string | null = null;

  // The pin never changes once stored: read it once, not on every invoice.
  let pinned: string | null = null;
  // The last check's outcome: invoices are issued only under a check that passed and still stands.
  let standing: { at: number; refusal: string | null } | null = null;
  let checking: Promise<NwcWalletInfo> | null = null;

  async function check(timeoutMs: number): Promise<NwcWalletInfo> {
    const info = await client.walletInfo(timeoutMs);
    let refusal = connectionRefusal(info, options.setting);
    if (!refusal && info.network && info.network !== options.network) refusal = `${options.setting}: the wallet is on ${info.network}, the Bitcoin invoices on ${options.network}`;
    standing = { at: clock.now(), refusal };
    if (refusal) throw new LightningConnectionRefused(refusal);
    logger.info('lightning wallet connected', { wallet: describeNwcConnection(connection), encryption: info.encryption, methods: info.methods.join(' ') });
    return info;
  }

  /** Checks the connection again when no check stands (a new process, a wallet whose permissions may have changed); one check at a time. */
  async function receiveOnly(): Promise<void> {
    const stands = standing && clock.now() - standing.at < (standing.refusal ? REFUSAL_STANDS_MS : CHECK_STANDS_MS);
    if (stands) {
      if (standing!.refusal) throw new LightningConnectionRefused(standing!.refusal);
      return;
    }
    checking ??= check(issueTimeoutMs).finally(() => (checking = null));
    await checking;
  }
  async function pinnedNode(): Promise<string | null> {
    if (pinned) return pinned;
    const row = await db.selectFrom('ln_wallet_nodes').select('node_pubkey').where('wallet_pubkey', '=', connection.walletPubkey).executeTakeFirst();
    pinned = row?.node_pubkey ?? null;
    return pinned;
  }

  return {
    client,
    connection,

    /** Connects and asks get_info; refuses a connection that may spend or cannot receive (LightningConnectionRefused). */
    check: (): Promise<NwcWalletInfo> => check(CHECK_TIMEOUT_MS),

    /** A checked BOLT11 for exactly `amountSats`, expiring at `expiresAt`; throws when the wallet is silent or its answer fails a check. */
    async issue(params: { amountSats: number; description: string | null; expiresAt: number }): Promise<IssuedInvoice> {
      const expirySeconds = Math.max(1, Math.round((params.expiresAt - clock.now()) / 1000));
      const amountMsat = BigInt(params.amountSats) * 1000n;
      try {
        await receiveOnly();
        const made = await client.makeInvoice({ amountMsat: Number(amountMsat), description: params.description, expirySeconds }, issueTimeoutMs);
        if (typeof made.invoice !== 'string' || typeof made.payment_hash !== 'string') throw new Bolt11Refused('the wallet answered make_invoice without an invoice and payment hash');
        const pin = await pinnedNode();
        const checked = checkBolt11(made.invoice, {
          network: options.network,
          amountMsat,
          paymentHash: made.payment_hash,
          expiresAtS: Math.floor(params.expiresAt / 1000),
          pinnedNode: pin,
        });
        if (!pin) {
          await db
            .insertInto('ln_wallet_nodes')
            .values({ wallet_pubkey: connection.walletPubkey, node_pubkey: checked.nodePubkey, pinned_at: clock.now() })
            .onConflict((oc) => oc.column('wallet_pubkey').doNothing())
            .execute();
          // Two first invoices at once: the one stored first is the pin; check against it.
          const stored = await pinnedNode();
          if (stored !== checked.nodePubkey) throw new Bolt11Refused(`the invoice is signed by node ${checked.nodePubkey}, not by ${stored}`);
        }
        lastProblem = null;
        return { bolt11: made.invoice, paymentHash: checked.paymentHash };
      } catch (error) {
        lastProblem = `the Lightning wallet gave no usable invoice: ${(error as Error).message}`;
        logger.warn('lightning invoice not issued', { wallet: describeNwcConnection(connection), reason: (error as Error).message });
        throw error;
      }
    },

    /** The last failure to issue an invoice, until one succeeds. */
    problem: () => lastProblem,

    close: () => client.close(),
  };
}

export type LightningWallet = ReturnType<typeof createLightningWallet>;
