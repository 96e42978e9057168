import type { Clock } from '../clock.ts';
import { sharedChainAnswers } from '../shared-answers.ts';
import { RpcError, type RpcSource } from './rpc.ts';

/**
 * One RPC endpoint shared by many watchers (one per Cloud merchant). The calls whose answer does
 * not depend on the merchant, the head number and blocks by number, are asked once per `maxAgeMs`
 * however many watchers poll; blocks by number are forgotten whenever the head moves, so a reorg
 * is seen within `maxAgeMs`. Everything else (eth_getLogs filtered by the merchant's recipients,
 * receipts) passes straight through.
 */
export function createSharedRpcSource(inner: RpcSource, options: { clock: Clock; maxAgeMs?: number }): RpcSource {
  const { clock } = options;
  const maxAgeMs = options.maxAgeMs ?? 1_000;
  const chain = sharedChainAnswers<unknown, string, unknown>({ clock, maxAgeMs });

  const source: RpcSource = {
    label: inner.label,
    get requests() {
      return inner.requests;
    },
    async batch(calls) {
      // Shared answers are served (or fetched once) one by one; the rest go to the node as one batch.
      const passing = calls.filter((c) => !SHARED_METHODS.has(c.method));
      const passed = passing.length ? await inner.batch(passing) : [];
      return Promise.all(
        calls.map((c) => (SHARED_METHODS.has(c.method) ? source.call(c.method, c.params).catch(rpcErrorAsAnswer) : passed.shift())),
      );
    },
    call<T>(method: string, params: unknown[]): Promise<T> {
      if (method === 'eth_blockNumber') return chain.head(() => inner.call<unknown>(method, params)) as Promise<T>;
      if (method === 'eth_getBlockByNumber') {
        return chain.atHeight(JSON.stringify(params), () => inner.call<unknown>(method, params)) as Promise<T>;
      }
      return inner.call<T>(method, params);
    },
  };
  return source;
}

const SHARED_METHODS = new Set(['eth_blockNumber', 'eth_getBlockByNumber']);

/** In a batch an RpcError is one call's answer; anything else fails the batch. */
function rpcErrorAsAnswer(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  throw error;
}
