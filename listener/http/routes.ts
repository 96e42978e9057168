import type { Health } from '../../shared/index.ts';
import type { InvoiceService } from '../../core/invoices/invoice.service.ts';
import { requireApiKey } from './api-key.ts';
import { readJsonBodyWithNumberTexts } from './json-body.ts';
import { documentHandlers } from './serve.ts';
import { rateLimit } from './rate-limit.ts';
import type { RouteHandlers } from './route-table.ts';
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

/** The listener's own API routes by operation id (the checkout's come from the checkout module). */
export function listenerHandlers(deps: RouteDeps): RouteHandlers {
  const documents = documentHandlers(deps.documents);
  return {
    createInvoice: [
      rateLimit(deps.rateLimit, deps.clock),
      requireApiKey(deps.apiKey),
      async (ctx) => {
        const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
        ctx.status = 201;
        ctx.body = await deps.invoices.create(body, numberTexts);
      },
    ],
    getInvoice: async (ctx) => {
      ctx.body = await deps.invoices.get(ctx.params.id!);
    },
    getHealth: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.health();
    },
    getOpenApi: documents.openapi,
    getLlmsTxt: documents.llms,
  };
}
