import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import type { ServiceMetrics } from '../../core/metrics.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * Counts every request by method, route template (`/invoice/:id`, never the raw path, which holds
 * invoice ids) and status, and times it. Requests no route matched count as `unmatched`.
 */
export function httpMetrics(metrics: ServiceMetrics): Middleware {
  return async (ctx, next) => {
    const stop = metrics.httpSeconds.startTimer();
    try {
      await next();
    } finally {
      const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
      stop({ method: ctx.method, route });
      metrics.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
    }
  };
}

/**
 * Headers a proxy adds to what it forwards (RFC 7239 `Forwarded`, `Via`, and the de-facto ones of
 * nginx, Apache, HAProxy and the CDNs): any of them means the caller is not on this host.
 */
const FORWARDING_HEADER = /^(forwarded|via|x-forwarded-.+|x-real-ip|x-client-ip|client-ip|true-client-ip|cf-connecting-ip|fastly-client-ip|x-cluster-client-ip|x-original-forwarded-for|x-proxyuser-ip)$/i;

/** Who may read GET /metrics without the token. */
export interface MetricsAccess {
  /** METRICS_TOKEN; null: no token, loopback callers only (when `loopbackOpen`). */
  token: string | null;
  /**
   * The server listens on loopback only and no PUBLIC_URL says a proxy fronts it: then a loopback
   * caller sending no forwarding header is on this host. A proxy on the same host may send no
   * header at all (nginx's default `proxy_pass`), so with PUBLIC_URL set only the token opens it.
   */
  loopbackOpen: boolean;
}

/** Loopback without the token: the server on loopback only, no PUBLIC_URL (see MetricsAccess). */
export const metricsLoopbackOpen = (onLoopback: boolean, publicUrl: string | null) => onLoopback && publicUrl === null;

/**
 * GET /metrics in the Prometheus text format. With the token (METRICS_TOKEN) set, any caller with
 * `Authorization: Bearer <token>`; without it, only a caller on this host: the server listens on
 * loopback only with no PUBLIC_URL, the socket's peer is loopback (never a forwarded address) and
 * the request carries no forwarding header of any kind.
 */
export function metricsHandler(metrics: ServiceMetrics, access: MetricsAccess): Middleware {
  const expected = access.token === null ? null : digest(access.token);
  return async (ctx) => {
    if (expected) {
      const given = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1] ?? '';
      if (!timingSafeEqual(digest(given), expected)) throw new ServiceError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    } else {
      if (!access.loopbackOpen) {
        throw new ServiceError('unauthorized', 'GET /metrics needs METRICS_TOKEN here (Authorization: Bearer): this server is reached beyond loopback (HOST) or through a proxy (PUBLIC_URL).');
      }
      const forwarded = Object.keys(ctx.headers).some((name) => FORWARDING_HEADER.test(name));
      if (forwarded || !LOOPBACK.test(ctx.req.socket.remoteAddress ?? '')) {
        throw new ServiceError('unauthorized', 'GET /metrics answers callers on this host only; set METRICS_TOKEN to scrape from elsewhere (Authorization: Bearer).');
      }
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
}
