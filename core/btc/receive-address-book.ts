import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.ts';
import { receiveAddress, type AccountKey } from './account-key.ts';
import type { DeriveRequest, DeriveResult } from './derive-worker.ts';

/** `.ts` when run through tsx, `.js` when compiled to dist/: the worker module is its sibling either way. */
const OWN_EXTENSION = import.meta.url.slice(import.meta.url.lastIndexOf('.'));

/** Derives receive addresses on a worker thread, for any number of wallet keys. */
export interface AddressDeriver {
  derive(key: AccountKey, from: number, count: number): Promise<string[]>;
  close(): void;
}

export interface ReceiveAddressBook {
  addressAt(index: number): string;
  allocated(index: number): void;
}

/**
 * One worker thread for the whole process. If it fails, every pending and later request is
 * refused, so address books fall back to deriving on request.
 */
export function startAddressDeriver(logger: Logger): AddressDeriver {
  const worker = startModuleWorker(new URL(`./derive-worker${OWN_EXTENSION}`, import.meta.url));
  worker.unref();
  const pending = new Map<number, { resolve(addresses: string[]): void; reject(error: Error): void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const refuseAll = (error: Error) => {
    failure = error;
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  };
  const fail = (error: Error) => {
    if (failure) return;
    logger.warn('address pre-derivation worker failed; deriving on request instead', { error });
    refuseAll(error);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`derive worker exited with ${code}`)));
  worker.on('message', ({ id, addresses }: DeriveResult) => {
    pending.get(id)?.resolve(addresses);
    pending.delete(id);
  });
  return {
    derive(key, from, count) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      const { keyId, network, receiveChain } = key;
      const request: DeriveRequest = { id, key: { keyId, network, publicKey: receiveChain.publicKey, chainCode: receiveChain.chainCode }, from, count };
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage(request);
      });
    },
    close() {
      if (!failure) refuseAll(new Error('derive worker closed'));
      void worker.terminate();
    },
  };
}

/**
 * Keeps addresses of the next child indexes of one wallet key derived ahead of requests, so a
 * request rarely pays for elliptic-curve work on the event loop. The buffer only answers "what
 * is the address of index i": which index an invoice gets is decided by the database alone, and a
 * miss is derived inline, so the buffer can never change an invoice's address. Without
 * `nextIndex` it starts deriving at the first allocation. Entries that fell more than `ahead`
 * behind the highest allocated index (taken by another process) are dropped. With `ramp`, the
 * buffer grows with use: after n allocations in this process it holds at most min(ahead, 2n),
 * derived min(batch, n) at a time, so a platform's many keys that make a few invoices each do not
 * each derive (and hold) a full buffer they never use.
 */
export function createReceiveAddressBook(
  deriver: AddressDeriver,
  key: AccountKey,
  options: { nextIndex?: number; ahead?: number; batch?: number; ramp?: boolean } = {},
): ReceiveAddressBook {
  let allocations = 0;
  const ahead = () => (options.ramp ? Math.min(options.ahead ?? 2048, 2 * allocations) : (options.ahead ?? 2048));
  const batch = () => (options.ramp ? Math.max(1, Math.min(options.batch ?? 256, allocations)) : (options.batch ?? 256));
  const derived = new Map<number, string>();
  let highestAllocated = (options.nextIndex ?? 0) - 1;
  let requestedUpTo = highestAllocated + 1;
  let inFlight = false;
  let failed = false;

  const refill = () => {
    if (inFlight || failed || requestedUpTo - highestAllocated > ahead()) return;
    inFlight = true;
    const from = requestedUpTo;
    const count = batch();
    requestedUpTo += count;
    deriver.derive(key, from, count).then(
      (addresses) => {
        addresses.forEach((address, offset) => {
          if (from + offset > highestAllocated) derived.set(from + offset, address);
        });
        inFlight = false;
        refill();
      },
      () => {
        failed = true;
      },
    );
  };
  if (options.nextIndex !== undefined) refill();

  return {
    addressAt(index) {
      const address = derived.get(index);
      if (address === undefined) return receiveAddress(key, index);
      derived.delete(index);
      return address;
    },
    allocated(index) {
      allocations++;
      if (index > highestAllocated) highestAllocated = index;
      if (requestedUpTo <= highestAllocated) requestedUpTo = highestAllocated + 1;
      // Entries come in index order, so the stale ones are at the front.
      for (const stale of derived.keys()) {
        if (stale >= highestAllocated - ahead()) break;
        derived.delete(stale);
      }
      refill();
    },
  };
}

/**
 * Each address derived on the worker thread when it is needed, nothing ahead: for instances that
 * share one database, where each sees only some of a key's indexes and a buffer ahead of them
 * would derive every index on every instance. A failed worker means inline derivation.
 */
export function onDemandAddresses(deriver: AddressDeriver, key: AccountKey): { addressAt(index: number): Promise<string> } {
  return {
    addressAt: (index) =>
      deriver.derive(key, index, 1).then(
        ([address]) => address!,
        () => receiveAddress(key, index),
      ),
  };
}

/**
 * Compiled, the worker is plain JavaScript. Through tsx, worker threads do not inherit its loader,
 * so the worker first registers it, then imports the TypeScript module. Both are resolved here, so
 * it works from any working directory.
 */
function startModuleWorker(module: URL): Worker {
  if (OWN_EXTENSION === '.js') return new Worker(module);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}
