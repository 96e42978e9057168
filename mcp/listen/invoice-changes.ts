import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { InvoiceUpdates } from '../invoice-watch.ts';

export const INVOICE_URI_PREFIX = 'invoice://';

/** An invoice a listen stream asked for, with the status the caller's own read found. */
export interface ListenedInvoice {
  invoiceId: string;
  status: string;
}

/**
 * Publishes `resource_updated` for `invoice://<id>` on the listen streams' bus exactly when that
 * invoice's status changes, hearing the status feed only for the invoices some open stream asked
 * for: one watch per invoice however many streams hold it, released with the last of them. Idle
 * streams cost nothing here (no timer, no read): the feed calls back when a status changes. The bus
 * filters per stream (the SDK's listen router), so a change is published once, not once per stream.
 */
export function createInvoiceChanges(bus: ServerEventBus) {
  const watched = new Map<string, { holders: number; status: string; stop(): void }>();

  function take(updates: InvoiceUpdates, invoice: ListenedInvoice): void {
    const known = watched.get(invoice.invoiceId);
    if (known) {
      known.holders++;
      return;
    }
    const entry: { holders: number; status: string; stop(): void } = { holders: 1, status: invoice.status, stop: () => undefined };
    watched.set(invoice.invoiceId, entry);
    // The feed can repeat a status (a payment seen, a reconnection's re-announcement): only a
    // different one is a change.
    entry.stop = updates.watch(invoice.invoiceId, (status) => {
      if (status === entry.status) return;
      entry.status = status;
      bus.publish({ kind: 'resource_updated', uri: INVOICE_URI_PREFIX + invoice.invoiceId });
    });
  }

  function give(invoiceId: string): void {
    const entry = watched.get(invoiceId);
    if (!entry || --entry.holders > 0) return;
    watched.delete(invoiceId);
    entry.stop();
  }

  return {
    /**
     * Watches `invoices` (each an invoice of the caller, read through its own client) for one
     * stream, through the caller's `updates`; returns the call that lets them go (once).
     */
    hold(updates: InvoiceUpdates, invoices: readonly ListenedInvoice[]): () => void {
      for (const invoice of invoices) take(updates, invoice);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        for (const invoice of invoices) give(invoice.invoiceId);
      };
    },
    /** Invoices watched on the feed now. */
    get watchedInvoices(): number {
      return watched.size;
    },
  };
}

export type InvoiceChanges = ReturnType<typeof createInvoiceChanges>;
