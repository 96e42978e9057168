import type { StatusFeed } from '../core/invoices/status-feed.ts';
import type { ListenerClient } from './listener-client.ts';

/** At most this many invoices watched per MCP session. */
export const MAX_SUBSCRIPTIONS = 100;

/**
 * Where the MCP server hears that an invoice's status changed. In the listener and Cloud that is
 * the invoices' status feed (no timer, nothing read until something changes); the stdio server,
 * in another process, reads the listener itself.
 */
export interface InvoiceUpdates {
  /**
   * Calls `changed` with the invoice's status whenever it may have changed (it can repeat a status:
   * compare with the last one seen); returns the call that stops watching.
   */
  watch(invoiceId: string, changed: (status: string) => void): () => void;
}

/**
 * Invoice updates by reading the listener every `intervalMs`, one timer for every watched invoice
 * of the process, armed only while something is watched: for the stdio server, which has no feed.
 */
export function pollingUpdates(listener: ListenerClient, intervalMs: number): InvoiceUpdates {
  const watchers = new Map<string, Set<(status: string) => void>>();
  let timer: NodeJS.Timeout | undefined;

  const arm = () => {
    if (timer || watchers.size === 0) return;
    timer = setTimeout(() => void pass(), intervalMs);
    timer.unref();
  };

  async function pass(): Promise<void> {
    await Promise.all(
      [...watchers.keys()].map(async (invoiceId) => {
        const read = await listener.getInvoice(invoiceId);
        // A failed read (the listener briefly away) is retried at the next pass.
        if (!read.ok) return;
        for (const changed of [...(watchers.get(invoiceId) ?? [])]) changed(read.value.status);
      }),
    );
    timer = undefined;
    arm();
  }

  return {
    watch(invoiceId, changed) {
      let set = watchers.get(invoiceId);
      if (!set) watchers.set(invoiceId, (set = new Set()));
      const entry = (status: string) => changed(status);
      set.add(entry);
      arm();
      return () => {
        set.delete(entry);
        if (set.size === 0 && watchers.get(invoiceId) === set) watchers.delete(invoiceId);
        if (watchers.size === 0) {
          clearTimeout(timer);
          timer = undefined;
        }
      };
    },
  };
}

/** Invoice updates from the status feed, for one merchant's invoices: another's are never heard. */
export function feedUpdates(feed: Pick<StatusFeed, 'watch'>, merchantId: string): InvoiceUpdates {
  return {
    watch: (invoiceId, changed) =>
      feed.watch(invoiceId, (change) => {
        if (change.merchant_id === merchantId) changed(change.status);
      }),
  };
}

/** Told of a status change of any invoice it subscribed to (an MCP session); must not throw. */
export type StatusSubscriber = (invoiceId: string, status: string) => void;

export interface InvoiceSubscriptions {
  add(invoiceId: string, subscriber: StatusSubscriber): void;
  remove(invoiceId: string, subscriber: StatusSubscriber): void;
}

const subscriptionsByUpdates = new WeakMap<InvoiceUpdates, InvoiceSubscriptions>();

/**
 * The subscriptions of every session that hears invoices through `updates`: one watch per invoice
 * however many sessions subscribe to it, each subscription one entry in that invoice's set (the
 * listener's sessions share one `updates`, so a thousand sessions cost one watch per invoice).
 */
export function subscriptionsOf(updates: InvoiceUpdates): InvoiceSubscriptions {
  let subscriptions = subscriptionsByUpdates.get(updates);
  if (subscriptions) return subscriptions;
  const invoices = new Map<string, { subscribers: Set<StatusSubscriber>; stop(): void }>();
  subscriptions = {
    add(invoiceId, subscriber) {
      let watched = invoices.get(invoiceId);
      if (!watched) {
        const subscribers = new Set<StatusSubscriber>();
        const stop = updates.watch(invoiceId, (status) => {
          for (const told of [...subscribers]) told(invoiceId, status);
        });
        invoices.set(invoiceId, (watched = { subscribers, stop }));
      }
      watched.subscribers.add(subscriber);
    },
    remove(invoiceId, subscriber) {
      const watched = invoices.get(invoiceId);
      if (!watched?.subscribers.delete(subscriber) || watched.subscribers.size > 0) return;
      invoices.delete(invoiceId);
      watched.stop();
    },
  };
  subscriptionsByUpdates.set(updates, subscriptions);
  return subscriptions;
}
