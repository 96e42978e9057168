/**
 * Waits until `read()` gives a value `done` accepts, asking again every `everyMs`. On timeout it
 * fails with what it waited for, the last value read and the watcher's state (its progress, the
 * chain tip it saw, its last error), so a test that hangs on a chain says where the watcher was.
 */
export async function waitForWatcher<T>(
  what: string,
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  options: { watcher: () => unknown; timeoutMs?: number; everyMs?: number },
): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) {
      let state: unknown;
      try {
        state = await options.watcher();
      } catch (error) {
        state = `unreadable: ${(error as Error).message}`;
      }
      throw new Error(`${what}: not reached after ${timeoutMs} ms\nlast value: ${describe(value)}\nwatcher: ${describe(state)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    value = await read();
  }
  return value;
}

function describe(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2) ?? String(value);
}

/** The invoice of a listener at `url` once it reads `wanted`; on timeout, the error holds the listener's /health (watcher progress). */
export function invoiceReaching(url: string, invoiceId: string, wanted: string): Promise<Record<string, unknown>> {
  return waitForWatcher(
    `invoice ${invoiceId} to read ${wanted}`,
    async () => (await (await fetch(`${url}/invoice/${invoiceId}`)).json()) as Record<string, unknown>,
    (invoice) => invoice.status === wanted,
    { watcher: async () => (await fetch(`${url}/health`)).json(), timeoutMs: 30_000 },
  );
}
