import type { BtcNetwork } from '../../shared/index.ts';
import { bitcoinNetworks } from './networks.ts';
import type { SeenOutput } from './btc-payment.repository.ts';
import type { SourceTx } from './chain-source.ts';
import { outputScriptHex } from './output-script.ts';

/** The invoice an output script pays, with its merchant and wallet key. */
export interface WatchedInvoice {
  merchantId: string;
  invoiceId: string;
  keyId: string | null;
}

export interface IndexRow {
  merchant_id: string;
  invoice_id: string;
  receive_address: string;
  network: string | null;
  key_id: string | null;
  created_at: number;
}

const MIN_FORGET_AT = 1_024;

/**
 * Every watched invoice's output script, whichever merchant it belongs to: one map lookup per
 * output, so a block costs the same for one merchant or ten thousand. An address that cannot be
 * read (a refused or corrupt row) is left out and remembered for its merchant; it never stops the
 * other merchants' invoices from being indexed.
 *
 * `rereadWindowMs`: how far before the newest invoice the watcher reads rows again. Only rows that
 * recent are remembered as seen (to skip decoding them again); older ones are never read again, so
 * 100,000 invoices cost one map entry each, not two.
 */
export function createWatchIndex({ rereadWindowMs }: { rereadWindowMs: number }) {
  const byScript = new Map<string, WatchedInvoice>();
  /** Merchant → the last reason one of its invoices could not be watched. */
  const refused = new Map<string, string>();
  /** Recent invoices already indexed or refused, with their `created_at`: the refresh window reads them again, and decoding an address again costs more than this lookup. */
  let seen = new Map<string, number>();
  /** One copy of each merchant id and wallet key id, however many invoices name it (rows come with copies of their own). */
  const names = new Map<string, string>();
  const shared = (name: string) => {
    const known = names.get(name);
    if (known !== undefined) return known;
    names.set(name, name);
    return name;
  };
  let newestCreatedAt = -1;
  let forgetAt = MIN_FORGET_AT;

  return {
    get size() {
      return byScript.size;
    },
    /** The newest `created_at` indexed, -1 before the first row. */
    get newestCreatedAt() {
      return newestCreatedAt;
    },
    refusedMerchants: () => refused as ReadonlyMap<string, string>,
    /** Adds rows (re-adding is harmless); returns the wallet keys of the invoices new to the index. */
    add(rows: readonly IndexRow[]): Array<string | null> {
      const added: Array<string | null> = [];
      for (const row of rows) {
        const createdAt = Number(row.created_at);
        newestCreatedAt = Math.max(newestCreatedAt, createdAt);
        const invoiceKey = `${row.merchant_id}\n${row.invoice_id}`;
        if (seen.has(invoiceKey)) continue;
        seen.set(invoiceKey, createdAt);
        let script: string;
        try {
          script = outputScriptHex(row.receive_address, bitcoinNetworks[(row.network ?? 'mainnet') as BtcNetwork]);
        } catch (error) {
          refused.set(shared(row.merchant_id), `invoice ${row.invoice_id}: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        const keyId = row.key_id === null ? null : shared(row.key_id);
        byScript.set(script, { merchantId: shared(row.merchant_id), invoiceId: row.invoice_id, keyId });
        added.push(keyId);
      }
      // Forgetting the rows older than the window whenever the map doubled keeps the cost per row constant.
      if (seen.size >= forgetAt) {
        const oldest = newestCreatedAt - rereadWindowMs;
        seen = new Map([...seen].filter(([, createdAt]) => createdAt >= oldest));
        forgetAt = Math.max(MIN_FORGET_AT, 2 * seen.size);
      }
      return added;
    },
    invoiceOf: (script: string) => byScript.get(script),
    /** Every wallet key with a watched invoice (a reorg or vanished payment may move any of their gaps). */
    keyIds(): Set<string | null> {
      return new Set([...byScript.values()].map((invoice) => invoice.keyId));
    },
  };
}

export type WatchIndex = ReturnType<typeof createWatchIndex>;

/** An output paying a watched invoice, with the invoice's wallet key (whose gap it moves). */
export type MatchedOutput = SeenOutput & { keyId: string | null };

/** The outputs of `txs` that pay a watched invoice, each credited to that invoice's merchant. */
export function matchOutputs(index: Pick<WatchIndex, 'invoiceOf'>, txs: readonly SourceTx[]): MatchedOutput[] {
  const found: MatchedOutput[] = [];
  for (const tx of txs) {
    tx.outputs.forEach((output, vout) => {
      const invoice = index.invoiceOf(output.script);
      if (invoice) found.push({ merchantId: invoice.merchantId, invoiceId: invoice.invoiceId, keyId: invoice.keyId, txid: tx.txid, vout, valueSats: output.value });
    });
  }
  return found;
}

/**
 * The open invoices in the order the socket should track them when it cannot track them all: each
 * merchant's newest first (merchants by their newest invoice), then each one's next, and so on, so
 * one shop with many open invoices cannot crowd the others out. `open` is newest first.
 */
export function inTurnsByMerchant<T extends { merchantId: string }>(open: readonly T[]): T[] {
  const byMerchant = new Map<string, T[]>();
  for (const invoice of open) {
    const own = byMerchant.get(invoice.merchantId);
    if (own) own.push(invoice);
    else byMerchant.set(invoice.merchantId, [invoice]);
  }
  const queues = [...byMerchant.values()];
  const ordered: T[] = [];
  for (let rank = 0; ordered.length < open.length; rank++) {
    for (const queue of queues) if (rank < queue.length) ordered.push(queue[rank]);
  }
  return ordered;
}
