import type { RouterMiddleware } from '@koa/router';
import { finalCheckoutStatuses, type CheckoutView } from '../../shared/checkout.ts';
import type { Logger } from '../../core/log.ts';
import type { StreamSlots } from './stream-slots.ts';
import type { ShareTenant } from '../../core/fair-shares.ts';

/** Tells `changed` when an invoice's status may have changed; returns the call that stops it. */
export type WatchInvoice = (invoiceId: string, changed: () => void) => () => void;

/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 25_000;
/** What the browser waits before reconnecting on its own (the page falls back to polling instead). */
const RETRY_MS = 5_000;

export interface CheckoutEventsOptions {
  view(invoiceId: string): Promise<CheckoutView>;
  watch: WatchInvoice;
  logger: Logger;
  /** The streams' caps per client address and in total. */
  slots: StreamSlots;
  /**
   * Cloud: the invoice's merchant, within whose plan's fair share the stream counts (unknown
   * invoice: ServiceError `not_found`). Absent on the listener.
   */
  tenantOf?(invoiceId: string): Promise<ShareTenant>;
  /** A stream's lifetime (CHECKOUT_STREAM_MAX_S): then `event: reconnect`, and the page opens a new one. */
  maxMs: number;
}

/**
 * The checkout view as Server-Sent Events: `event: view` with the view now, then after each status
 * change the feed reports, until the status is final. Nothing is read while nothing changes. An
 * unknown invoice is refused with the error envelope before the stream starts, and so is a stream
 * over a cap (see streamSlots). After `maxMs` the stream ends with `event: reconnect`: no socket is
 * held for the whole life of an invoice by one request.
 */
export function checkoutEvents(options: CheckoutEventsOptions): RouterMiddleware {
  return async (ctx) => {
    const invoiceId = ctx.params.id!;
    const tenant = options.tenantOf && (await options.tenantOf(invoiceId));
    const release = options.slots.take(ctx.ip, tenant);
    let first: CheckoutView;
    try {
      first = await options.view(invoiceId);
    } catch (error) {
      release();
      throw error;
    }
    const res = ctx.res;
    ctx.respond = false;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${RETRY_MS}\n\n`);

    let lastStatus: string | undefined;
    let ended = false;
    let reading: Promise<void> = Promise.resolve();
    const send = (view: CheckoutView) => {
      if (ended) return;
      const key = `${view.status}/${view.payment_seen}`;
      if (key !== lastStatus) {
        lastStatus = key;
        res.write(`event: view\ndata: ${JSON.stringify(view)}\n\n`);
      }
      if (finalCheckoutStatuses.includes(view.status)) end();
    };
    const stop = options.watch(invoiceId, () => {
      reading = reading.then(async () => {
        if (ended) return;
        try {
          send(await options.view(invoiceId));
        } catch (error) {
          // The page polls when the stream ends: it reads the view itself.
          options.logger.warn('checkout stream: view unreadable; stream ended', { error: String(error) });
          end();
        }
      });
    });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    const lifetime = setTimeout(() => {
      res.write('event: reconnect\ndata: {}\n\n');
      end();
    }, options.maxMs);
    function end() {
      if (ended) return;
      ended = true;
      stop();
      clearInterval(keepAlive);
      clearTimeout(lifetime);
      release();
      res.end();
    }
    res.on('close', end);
    // The payer left while the view was read: 'close' has come and gone.
    if (ctx.req.socket.destroyed) return end();
    send(first);
  };
}
