/** A recorded output paying an invoice's address, as the rules need it. */
export interface PaymentView {
  txid: string;
  vout: number;
  valueSats: bigint;
  /** `gone`: left the mempool or its block was reorganised away, and not seen since. */
  status: 'mempool' | 'block' | 'gone';
  blockHeight: number | null;
  /** When its block was mined (ms), by that block's header on the verified chain; null while unknown or not in a block. */
  blockTime: number | null;
  firstSeenAt: number;
  reported: boolean;
}

export interface InvoiceView {
  amountSats: bigint;
  expiresAt: number;
  status: string;
}

export type InvoiceDecision =
  | { status: 'confirmed'; txHash: string; confirmations: number }
  | { status: 'pending' | 'partial' | 'expired' };

/** The spec's tiers: 1 confirmation below 0.001 BTC, 3 below 0.01 BTC, 6 from 0.01 BTC up. */
export function requiredConfirmations(amountSats: bigint): number {
  if (amountSats < 100_000n) return 1;
  if (amountSats < 1_000_000n) return 3;
  return 6;
}

export function confirmationsOf(payment: PaymentView, tipHeight: number): number {
  return payment.status === 'block' && payment.blockHeight !== null ? tipHeight - payment.blockHeight + 1 : 0;
}

/**
 * How long after its expiry a payment first seen before it may still be mined and count: 24 hours,
 * measured by the time in its block's header on the verified chain. Time, not a block count, so the
 * payer's allowance does not shrink when blocks come fast; 24 h is far past any fee-market wait for
 * a transaction that pays a normal fee, and far beyond the ±2 h a miner can shift a header's time.
 * Past it a sighting no longer holds the invoice open: it expires, and a payment mined later is a
 * late payment (payment.orphan once deep enough).
 */
export const MINED_GRACE_MS = 24 * 60 * 60 * 1000;

/** An output first seen before the expiry, still standing: it may count (see paidInTime). */
export const seenBeforeExpiry = (expiresAt: number, payment: PaymentView) => payment.status !== 'gone' && payment.firstSeenAt < expiresAt;

/**
 * Bitcoin's matching rule: an output counts toward its address's invoice if first seen before the
 * expiry and mined within the grace after it. One in a block of known time is judged by that time;
 * a sighting (or a block whose time is not known) counts only while the grace lasts, so no sighting
 * holds an invoice open beyond it.
 */
export function paidInTime(expiresAt: number, payment: PaymentView, now: number): boolean {
  if (!seenBeforeExpiry(expiresAt, payment)) return false;
  const minedBy = payment.status === 'block' && payment.blockTime !== null ? payment.blockTime : now;
  return minedBy < expiresAt + MINED_GRACE_MS;
}

/**
 * What an open (pending or partial) invoice should read, recounted from scratch from its payments
 * and the current tip, so a reorg or a vanished transaction is reflected on the next pass.
 * Only payments first seen before expiry and mined within the grace count; the invoice confirms when those with the tier's
 * confirmations sum to the amount, and `txHash` is the one that completed the sum (in chain order).
 * It is `partial` once a verified block holds part of the amount; an unconfirmed sighting is shown
 * as "payment seen" at most.
 */
export function decideOpenInvoice(invoice: InvoiceView, payments: PaymentView[], tipHeight: number, now: number): InvoiceDecision {
  const required = requiredConfirmations(invoice.amountSats);
  const timely = payments
    .filter((p) => paidInTime(invoice.expiresAt, p, now))
    .sort(chainOrder);
  let confirmedSum = 0n;
  for (const payment of timely) {
    const confirmations = confirmationsOf(payment, tipHeight);
    if (confirmations < required) continue;
    confirmedSum += payment.valueSats;
    if (confirmedSum >= invoice.amountSats) return { status: 'confirmed', txHash: payment.txid, confirmations };
  }
  const seen = timely.reduce((sum, p) => sum + p.valueSats, 0n);
  if (seen >= invoice.amountSats) return { status: 'pending' }; // paid in time, waiting for confirmations
  if (now >= invoice.expiresAt) return { status: 'expired' };
  // `partial` is a money state: it rests on outputs in verified blocks only, never on a sighting.
  const inBlocks = timely.some((p) => p.status === 'block');
  return { status: inBlocks ? 'partial' : 'pending' };
}

/**
 * Payments to an invoice that is already settled (expired, or confirmed by other payments) that
 * the merchant has not been told about yet and that are now buried deep enough to report.
 */
export function orphansToReport(payments: PaymentView[], tipHeight: number): PaymentView[] {
  return payments.filter((p) => !p.reported && confirmationsOf(p, tipHeight) >= requiredConfirmations(p.valueSats));
}

function chainOrder(a: PaymentView, b: PaymentView): number {
  const ha = a.blockHeight ?? Number.MAX_SAFE_INTEGER;
  const hb = b.blockHeight ?? Number.MAX_SAFE_INTEGER;
  if (ha !== hb) return ha - hb;
  if (a.firstSeenAt !== b.firstSeenAt) return a.firstSeenAt - b.firstSeenAt;
  return a.txid === b.txid ? a.vout - b.vout : a.txid < b.txid ? -1 : 1;
}
