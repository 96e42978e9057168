import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { optInWebhookEvents, type OptInWebhookEvent, type WebhookEventContent } from '../../shared/index.ts';
import type { ChainModule } from '../invoices/chain-module.ts';
import { findInvoice, type InvoiceRow } from '../invoices/invoice.repository.ts';
import type { StatusChange, StatusFeed } from '../invoices/status-feed.ts';
import type { CoreTables } from '../schema.ts';
import { invoiceShopFields } from '../invoices/shop-fields.ts';
import { enqueueEvents, type NewEvent } from './outbox.ts';

/** The opt-in events each of these merchants subscribes to now (a merchant left out: none). */
export type EventSubscriptions = (trx: Transaction<CoreTables>, merchantIds: readonly string[]) => Promise<ReadonlyMap<string, ReadonlySet<OptInWebhookEvent>>>;

/** The listener's: its one merchant's `MERCHANT_WEBHOOK_EVENTS`. */
export const fixedSubscriptions =
  (merchantId: string, events: readonly OptInWebhookEvent[]): EventSubscriptions =>
  async () =>
    new Map(events.length ? [[merchantId, new Set(events)]] : []);

/** Names given as subscriptions, checked: the opt-in events among them, and those that are not one. */
export function optInEventsFrom(names: readonly string[]): { events: OptInWebhookEvent[]; unknown: string[] } {
  const known = (name: string): name is OptInWebhookEvent => (optInWebhookEvents as readonly string[]).includes(name);
  return { events: [...new Set(names.filter(known))], unknown: names.filter((name) => !known(name)) };
}

/**
 * The status feed, writing the opt-in lifecycle events each merchant subscribed to into the outbox
 * in the transaction that changes the status: whatever writes a status (the watchers, settlement,
 * the expiry sweeper, the lazy expiry on read) goes through the feed, so no writer can miss one.
 * `partial` and `expired` come from the status; `invoice.payment_seen` from any change or sighting
 * announced for an open invoice with a verified payment toward it (chain.paidSoFar). Each event's id
 * is derived from its type and invoice, so the outbox stores it once per invoice however often the
 * status comes back (a reorg turning `partial` into `pending` and back), on any instance. The
 * subscription is read when the change happens: events are not written for a merchant who has not
 * subscribed, nor sent later to one who subscribes afterwards.
 */
export function withLifecycleEvents(feed: StatusFeed, options: { chains: readonly ChainModule[]; subscriptions: EventSubscriptions }): StatusFeed {
  return {
    ...feed,
    transaction: (db, work) =>
      feed.transaction(db, async (trx, changed) => {
        const changes: StatusChange[] = [];
        const result = await work(trx, (change) => {
          changes.push(change);
          changed(change);
        });
        if (changes.length) await enqueueEvents(trx, await lifecycleEvents(trx, changes, options));
        return result;
      }),
  };
}

/** Which events a change can cause, before anything is read. */
function candidates(change: StatusChange): OptInWebhookEvent[] {
  if (change.status === 'expired') return ['invoice.expired'];
  if (change.status === 'partial') return ['invoice.payment_seen', 'invoice.partial'];
  if (change.status === 'pending') return ['invoice.payment_seen'];
  return [];
}

async function lifecycleEvents(
  trx: Transaction<CoreTables>,
  changes: readonly StatusChange[],
  options: { chains: readonly ChainModule[]; subscriptions: EventSubscriptions },
): Promise<NewEvent[]> {
  const possible = changes.filter((change) => candidates(change).length);
  if (!possible.length) return [];
  const subscribed = await options.subscriptions(trx, [...new Set(possible.map((change) => change.merchant_id))]);
  const ids = possible.flatMap((change) => candidates(change).filter((type) => subscribed.get(change.merchant_id)?.has(type)).map((type) => lifecycleEventId(type, change)));
  if (!ids.length) return [];
  const stored = await storedIds(trx, [...new Set(ids)]);
  const events = new Map<string, NewEvent>();
  for (const change of possible) {
    const wanted = candidates(change).filter((type) => {
      const id = lifecycleEventId(type, change);
      return subscribed.get(change.merchant_id)?.has(type) && !stored.has(id) && !events.has(id);
    });
    if (!wanted.length) continue;
    const row = await findInvoice(trx, change.merchant_id, change.invoice_id);
    // The row as this transaction leaves it: a status moved on since the change (confirmed) causes none of these.
    if (!row || row.status !== change.status) continue;
    const chain = options.chains.find((module) => module.chain === row.chain);
    if (!chain) continue;
    const paid = await chain.paidSoFar(trx, row);
    for (const type of wanted) {
      // A sighting at a shared (fixed) address is announced to every open invoice there: only one with a payment toward it saw one.
      if (type === 'invoice.payment_seen' && paid === 0n) continue;
      const eventId = lifecycleEventId(type, row);
      events.set(eventId, { merchantId: row.merchant_id, createdAt: change.at, eventId, payload: lifecyclePayload(type, row, chain, paid, change.at) });
    }
  }
  return [...events.values()];
}

/** Ids among these the outbox holds already (most announcements after the first): nothing is read for them. */
async function storedIds(trx: Transaction<CoreTables>, ids: string[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const rows = await trx.selectFrom('events').select('event_id').where('event_id', 'in', ids.slice(i, i + IDS_PER_QUERY)).execute();
    for (const row of rows) stored.add(row.event_id);
  }
  return stored;
}

/** Far below any driver's limit on bound parameters, however many invoices one pass moves. */
const IDS_PER_QUERY = 500;

/** One id per type and invoice (within a transaction too): the outbox keeps the first and ignores the others. */
const lifecycleEventId = (type: OptInWebhookEvent, row: Pick<InvoiceRow, 'merchant_id' | 'invoice_id'>) =>
  `evt_${createHash('sha256').update(`${type}\n${row.merchant_id}\n${row.invoice_id}`).digest('hex').slice(0, 32)}`;

function lifecyclePayload(type: OptInWebhookEvent, row: InvoiceRow, chain: ChainModule, paid: bigint, at: number): WebhookEventContent {
  return {
    event: type,
    invoice_id: row.invoice_id,
    merchant_id: row.merchant_id,
    chain: row.chain as WebhookEventContent['chain'],
    asset: row.asset,
    status: row.status as 'pending' | 'partial' | 'expired',
    amount: chain.amountText(row),
    amount_paid: chain.unitsText(paid),
    address: row.receive_address,
    occurred_at: new Date(at).toISOString(),
    ...invoiceShopFields(row),
      };
}
