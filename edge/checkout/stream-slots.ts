import { ServiceError } from '../../core/errors.ts';
import { shareLedger, takeShare, type FairShareBounds, type ShareTenant } from '../../core/fair-shares.ts';

/** What a refused stream is told to wait before trying again; the page polls the view meanwhile. */
export const STREAM_RETRY_AFTER_S = 30;

const CHECKOUT_SHARE_NAMES = { what: 'open checkout streams', capSetting: 'CLOUD_CHECKOUT_STREAMS_PER_PLAN', code: 'too_many_streams' } as const;

/** Open checkout event streams, counted per client address and in total on this server. */
export interface StreamSlots {
  /**
   * A slot for one stream of `client`, and the call that gives it back (once); refused over a cap.
   * On Cloud the stream also counts within `tenant`'s fair share: the invoice's merchant's plan.
   */
  take(client: string, tenant?: ShareTenant): () => void;
  /** Streams open now. */
  open(): number;
}

/**
 * The checkout streams' caps (CHECKOUT_STREAMS_PER_CLIENT, CHECKOUT_STREAMS_MAX): each stream
 * holds a socket for as long as its invoice is open, so one address cannot hold more than its
 * share and all together cannot exhaust the file descriptors the API and the database need.
 * Over the per-address cap: `too_many_streams` (429); over the total: `capacity` (503); both with
 * Retry-After.
 */
export function streamSlots(limits: { perClient: number; total: number; /** Cloud's fair shares of `total` between plans (core/fair-shares.ts). */ shares?: FairShareBounds }): StreamSlots {
  const byClient = new Map<string, number>();
  const tenants = shareLedger();
  let total = 0;
  return {
    take(client, tenant) {
      const mine = byClient.get(client) ?? 0;
      if (mine >= limits.perClient) {
        throw new ServiceError('too_many_streams', `This address has ${limits.perClient} checkout streams open already; poll the view instead, or retry in ${STREAM_RETRY_AFTER_S} s.`, { retryAfterS: STREAM_RETRY_AFTER_S });
      }
      if (total >= limits.total) {
        throw new ServiceError('capacity', `This server has all its ${limits.total} checkout streams open; poll the view instead, or retry in ${STREAM_RETRY_AFTER_S} s.`, { retryAfterS: STREAM_RETRY_AFTER_S });
      }
      const releaseShare = limits.shares && tenant ? takeShare(tenants, limits.shares, CHECKOUT_SHARE_NAMES, tenant, () => STREAM_RETRY_AFTER_S) : () => undefined;
      byClient.set(client, mine + 1);
      total++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        releaseShare();
        total--;
        const left = byClient.get(client)! - 1;
        if (left === 0) byClient.delete(client);
        else byClient.set(client, left);
      };
    },
    open: () => total,
  };
}
