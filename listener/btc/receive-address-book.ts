import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { Logger } from '../log.ts';
import { peekNextChildIndex } from '../invoices/invoice.repository.ts';
import { receiveAddress, type AccountKey } from './account-key.ts';
import type { DeriveResult, DeriveWorkerData } from './derive-worker.ts';

export interface ReceiveAddressBook {
  addressAt(index: number): string;
  allocated(index: number): void;
  close(): void;
}

/**
 * Keeps addresses of the next child indexes derived ahead of requests, on a worker thread, so a
 * request rarely pays for elliptic-curve work on the event loop. The buffer only answers "what
 * is the address of index i": which index an invoice gets is decided by the database alone, and a
 * miss is derived inline, so the buffer can never change an invoice's address.
 */
export async function createReceiveAddressBook(
  db: Kysely<Tables>,
  merchantId: string,
  key: AccountKey,
  logger: Logger,
  options: { ahead?: number; batch?: number } = {},
): Promise<ReceiveAddressBook> {
  const ahead = options.ahead ?? 2048;
  const batch = options.batch ?? 256;
  const derived = new Map<number, string>();
  let requestedUpTo = await peekNextChildIndex(db, merchantId, 'btc', key.keyId);
  let inFlight = false;

  const workerData: DeriveWorkerData = {
    publicKey: key.receiveChain.publicKey,
    chainCode: key.receiveChain.chainCode,
    network: key.network,
  };
  const worker = startTypeScriptWorker(new URL('./derive-worker.ts', import.meta.url), workerData);
  worker.unref();
  let workerFailed = false;
  worker.on('error', (error) => {
    workerFailed = true;
    logger.warn('address pre-derivation worker failed; deriving on request instead', { error });
  });

  let highestAllocated = requestedUpTo - 1;
  const refill = () => {
    if (inFlight || workerFailed || requestedUpTo - highestAllocated > ahead) return;
    inFlight = true;
    worker.postMessage({ from: requestedUpTo, count: batch });
    requestedUpTo += batch;
  };
  worker.on('message', ({ from, addresses }: DeriveResult) => {
    addresses.forEach((address, offset) => {
      if (from + offset > highestAllocated) derived.set(from + offset, address);
    });
    inFlight = false;
    refill();
  });
  refill();

  return {
    addressAt(index) {
      const address = derived.get(index);
      if (address === undefined) return receiveAddress(key, index);
      derived.delete(index);
      return address;
    },
    allocated(index) {
      if (index > highestAllocated) highestAllocated = index;
      if (requestedUpTo <= highestAllocated) requestedUpTo = highestAllocated + 1;
      refill();
    },
    close() {
      void worker.terminate();
    },
  };
}

/**
 * Worker threads do not inherit tsx's loader, so the worker first registers it, then imports
 * the TypeScript module. Both are resolved here, so it works from any working directory.
 */
function startTypeScriptWorker(module: URL, workerData: unknown): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
