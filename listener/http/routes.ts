import Router from '@koa/router';
import type { Health } from '../../shared/index.ts';
import type { InvoiceService } from '../../core/invoices/invoice.service.ts';
import { requireApiKey } from './api-key.ts';
import { readJsonBodyWithNumberTexts } from './json-body.ts';
import { documentRoutes } from './serve.ts';
import { rateLimit } from './rate-limit.ts';
import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../config.ts';

export interface RouteDeps {
  invoices: InvoiceService;
  health: () => Promise<Health>;
  documents: { openapi: string; llms: string };
  apiKey: string | null;
  rateLimit: RateLimitConfig | null;
  clock: Clock;
}

export function listenerRoutes(deps: RouteDeps): Router {
  const router = new Router();

  router.post('/invoice', rateLimit(deps.rateLimit, deps.clock), requireApiKey(deps.apiKey), async (ctx) => {
    const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
    ctx.status = 201;
    ctx.body = await deps.invoices.create(body, numberTexts);
  });

  router.get('/invoice/:id', async (ctx) => {
    ctx.body = await deps.invoices.get(ctx.params.id);
  });

  router.get('/health', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.health();
  });

  documentRoutes(router, deps.documents);

  return router;
}
