import type { Kysely, Transaction } from 'kysely';
import type { CoreTables } from '../schema.ts';

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
  /** Tells `listener` each later status change of one invoice; returns the call that stops it. */
  watch(merchantId: string, invoiceId: string, listener: StatusListener): () => void;
  /** Tells `listener` every status change of every invoice; returns the call that stops it. */
  subscribe(listener: StatusListener): () => void;
  close(): Promise<void>;
}

const keyOf = (merchantId: string, invoiceId: string) => `${merchantId}\u0000${invoiceId}`;

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
    watch(merchantId: string, invoiceId: string, listener: StatusListener): () => void {
      const key = keyOf(merchantId, invoiceId);
      let set = watchers.get(key);
      if (!set) watchers.set(key, (set = new Set()));
      // A wrapper per call: the same function watching twice is two watches, each stopped once.
      const entry: StatusListener = (change) => listener(change);
      set.add(entry);
      return () => {
        set.delete(entry);
        if (set.size === 0 && watchers.get(key) === set) watchers.delete(key);
      };
    },
    subscribe(listener: StatusListener): () => void {
      const entry: StatusListener = (change) => listener(change);
      everything.add(entry);
      return () => everything.delete(entry);
    },
    /** Whether anyone would hear a change of this invoice. */
    wanted(merchantId: string, invoiceId: string): boolean {
      return everything.size > 0 || watchers.has(keyOf(merchantId, invoiceId));
    },
    /** The invoices watched now, as [merchant_id, invoice_id]. */
    watched(): Array<[string, string]> {
      return [...watchers.keys()].map((key) => key.split('\u0000') as [string, string]);
    },
    emit(change: StatusChange): void {
      for (const listener of [...(watchers.get(keyOf(change.merchant_id, change.invoice_id)) ?? [])]) call(listener, change);
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
