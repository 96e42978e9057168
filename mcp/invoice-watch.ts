import type { ListenerClient } from './listener-client.ts';

/** At most this many invoices watched per MCP session: each costs one read per interval. */
export const MAX_SUBSCRIPTIONS = 100;

export interface InvoiceWatch {
  /** Starts watching; the status now is the baseline, so only later changes are reported. */
  add(invoiceId: string, status: string): void;
  remove(invoiceId: string): void;
  readonly size: number;
  close(): void;
}

/**
 * Re-reads the watched invoices every `intervalMs` and calls `changed` when one's status differs
 * from the last seen. Polling the store (not listening to one process's events) reports a change
 * made by any instance, and works the same over HTTP (stdio) and in process. One timer per session,
 * armed only while something is watched.
 */
export function watchInvoices(listener: ListenerClient, intervalMs: number, changed: (invoiceId: string) => void): InvoiceWatch {
  const statuses = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const arm = () => {
    if (timer || closed || statuses.size === 0) return;
    timer = setTimeout(() => void pass(), intervalMs);
    timer.unref();
  };

  async function pass(): Promise<void> {
    await Promise.all(
      [...statuses.keys()].map(async (invoiceId) => {
        const read = await listener.getInvoice(invoiceId);
        const before = statuses.get(invoiceId);
        // A failed read (the listener briefly away) is retried at the next pass.
        if (!read.ok || before === undefined || read.value.status === before) return;
        statuses.set(invoiceId, read.value.status);
        changed(invoiceId);
      }),
    );
    timer = undefined;
    arm();
  }

  return {
    add(invoiceId, status) {
      statuses.set(invoiceId, status);
      arm();
    },
    remove(invoiceId) {
      statuses.delete(invoiceId);
    },
    get size() {
      return statuses.size;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      statuses.clear();
    },
  };
}
