import type { Kysely, Transaction } from 'kysely';
import type { CoreTables } from '../schema.ts';
import { chunks } from '../db/chunks.ts';

/** One invoice's status change, as the feed publishes it: no amounts, addresses or secrets. */
export interface StatusChange {
  invoice_id: string;
  merchant_id: string;
  status: string;
  /** When the change was stored (epoch ms). */
  at: number;
}

export type StatusListener = (change: StatusChange) => void;

/**
 * The invoices' status changes, each published once after the transaction that made it commits,
 * never for one rolled back. A consumer treats a change as "the status is now X": after a lost
 * connection the feed re-announces what its watchers watch, so a consumer compares with what it
 * last saw and acts only on a difference.
 */
export interface StatusFeed {
  /**
   * Runs `work` in one transaction; every change it reports through `changed` is published after
   * the commit. Writers of `invoices.status` go through here.
   */
  transaction<T>(db: Kysely<CoreTables>, work: (trx: Transaction<CoreTables>, changed: (change: StatusChange) => void) => Promise<T>): Promise<T>;
  /** Tells `listener` each later status change of one invoice (ids are unique across merchants); returns the call that stops it. */
  watch(invoiceId: string, listener: StatusListener): () => void;
  /** Tells `listener` every status change of every invoice; returns the call that stops it. */
  subscribe(listener: StatusListener): () => void;
  close(): Promise<void>;
}

/**
 * Who listens to what, for any feed: a change costs one map lookup plus its listeners, however
 * many invoices are watched. A listener that throws does not stop the others.
 */
export function createDispatcher(onError: (error: unknown) => void) {
  const watchers = new Map<string, Set<StatusListener>>();
  const everything = new Set<StatusListener>();

  const call = (listener: StatusListener, change: StatusChange) => {
    try {
      listener(change);
    } catch (error) {
      onError(error);
    }
  };

  return {
    watch(invoiceId: string, listener: StatusListener): () => void {
      let set = watchers.get(invoiceId);
      if (!set) watchers.set(invoiceId, (set = new Set()));
      // A wrapper per call: the same function watching twice is two watches, each stopped once.
      const entry: StatusListener = (change) => listener(change);
      set.add(entry);
      return () => {
        set.delete(entry);
        if (set.size === 0 && watchers.get(invoiceId) === set) watchers.delete(invoiceId);
      };
    },
    subscribe(listener: StatusListener): () => void {
      const entry: StatusListener = (change) => listener(change);
      everything.add(entry);
      return () => everything.delete(entry);
    },
    /** Whether anyone would hear a change of this invoice. */
    wanted(invoiceId: string): boolean {
      return everything.size > 0 || watchers.has(invoiceId);
    },
    /** The invoices watched now. */
    watched(): string[] {
      return [...watchers.keys()];
    },
    emit(change: StatusChange): void {
      for (const listener of [...(watchers.get(change.invoice_id) ?? [])]) call(listener, change);
      for (const listener of [...everything]) call(listener, change);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

/** One process's feed: changes go to this process's listeners once the transaction has committed. */
export function createMemoryStatusFeed(onError: (error: unknown) => void = () => undefined): StatusFeed {
  const dispatcher = createDispatcher(onError);
  return {
    async transaction(db, work) {
      const changes: StatusChange[] = [];
      const result = await db.transaction().execute((trx) => work(trx, (change) => changes.push(change)));
      for (const change of changes) dispatcher.emit(change);
      return result;
    },
    watch: dispatcher.watch,
    subscribe: dispatcher.subscribe,
    async close() {},
  };
}

/**
 * A payment toward some open invoices was seen, which changes no status but does change what a
 * payer's page shows ("payment received, do not pay again"): their status is announced as it
 * stands. Consumers of the status alone see no difference and do nothing. `by`: the invoices' ids,
 * or their receive addresses (every open invoice at a shared address is announced).
 */
export async function announcePaymentSeen(
  trx: Transaction<CoreTables>,
  changed: (change: StatusChange) => void,
  merchantId: string,
  by: { invoiceIds: string[] } | { addresses: string[] },
  at: number,
): Promise<void> {
  const keys = 'invoiceIds' in by ? by.invoiceIds : by.addresses;
  if (keys.length === 0) return;
  // A block can pay one merchant thousands of times: a bounded number of keys per statement.
  for (const chunk of chunks([...new Set(keys)])) {
    const rows = await trx
      .selectFrom('invoices')
      .select(['invoice_id', 'status'])
      .where('merchant_id', '=', merchantId)
      .where('invoiceIds' in by ? 'invoice_id' : 'receive_address', 'in', chunk)
      .where('status', 'in', ['pending', 'partial'])
      .execute();
    for (const row of rows) changed({ invoice_id: row.invoice_id, merchant_id: merchantId, status: row.status, at });
  }
}
