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
 * GET /metrics in the Prometheus text format. With `token` (METRICS_TOKEN) set, any caller with
 * `Authorization: Bearer <token>`; without it, callers on the loopback interface only, judged by the
 * socket (never a forwarded address), and no request a proxy forwarded (it would come from loopback).
 */
export function metricsHandler(metrics: ServiceMetrics, token: string | null): Middleware {
  const expected = token === null ? null : digest(token);
  return async (ctx) => {
    if (expected) {
      const given = /^Bearer (.+)$/.exec(ctx.get('Authorization'))?.[1] ?? '';
      if (!timingSafeEqual(digest(given), expected)) throw new ServiceError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    } else {
      const forwarded = ctx.get('X-Forwarded-For') || ctx.get('Forwarded');
      if (forwarded || !LOOPBACK.test(ctx.req.socket.remoteAddress ?? '')) {
        throw new ServiceError('unauthorized', 'GET /metrics answers loopback callers only; set METRICS_TOKEN to scrape from elsewhere (Authorization: Bearer).');
      }
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
}
