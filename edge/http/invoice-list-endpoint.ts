import { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { InvoiceLists } from '../../core/invoices/invoice-list.ts';
import { parseListQuery } from '../../core/invoices/list-query.ts';
import type { Logger } from '../../core/log.ts';

/** A merchant's CSV exports running at once: each holds a connection and reads its whole list. */
const EXPORTS_PER_MERCHANT = 2;
const EXPORT_RETRY_AFTER_S = 5;

export interface InvoiceListEndpointDeps {
  lists: InvoiceLists;
  clock: Clock;
  logger: Logger;
  /** Whose invoices the request lists. */
  merchantOf(ctx: Context): string;
  /** The merchants' running exports, shared by every handler that exports the same merchants' invoices. */
  exports: ExportSlots;
}

/** The merchants' running exports, counted so each runs at most EXPORTS_PER_MERCHANT: take one, call what it returns when done. */
export type ExportSlots = (merchantId: string) => () => void;

export function exportSlots(): ExportSlots {
  const running = new Map<string, number>();
  return (merchantId: string): (() => void) => {
    const count = running.get(merchantId) ?? 0;
    if (count >= EXPORTS_PER_MERCHANT) {
      throw new ServiceError('rate_limited', `At most ${EXPORTS_PER_MERCHANT} CSV exports run at once; retry when one has finished.`, { retryAfterS: EXPORT_RETRY_AFTER_S });
    }
    running.set(merchantId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = running.get(merchantId)! - 1;
      if (left === 0) running.delete(merchantId);
      else running.set(merchantId, left);
    };
  };
}

const wantsCsv = (ctx: Context, format: 'json' | 'csv' | null) => format === 'csv' || (format === null && ctx.accepts('application/json', 'text/csv') === 'text/csv');

/**
 * Lists a merchant's invoices (listener GET /invoices, Cloud GET /api/v1/invoices, the dashboard's
 * export): one page as JSON, or every matching invoice as CSV, streamed with the response's
 * backpressure, so memory holds a chunk whatever the export's size.
 */
export function invoiceListHandler(deps: InvoiceListEndpointDeps): Middleware {
  async function exportCsv(ctx: Context, merchantId: string, request: ReturnType<typeof parseListQuery>): Promise<void> {
    const release = deps.exports(merchantId);
    let text: AsyncIterable<string>;
    try {
      text = await deps.lists.csv(merchantId, request.filters);
    } catch (error) {
      release();
      throw error;
    }
    const stream = Readable.from(text, { objectMode: false });
    stream.once('close', release);
    // Once the header is sent no envelope can follow: a failure cuts the connection, so the client
    // sees an incomplete transfer rather than a file that looks whole.
    stream.once('error', (error) => {
      ((ctx.state.log as Logger | undefined) ?? deps.logger).error('invoice export failed', { error });
      ctx.res.destroy();
    });
    const stamp = new Date(deps.clock.now()).toISOString().replace(/[-:]|\.\d+/g, '');
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', `attachment; filename="invoices-${stamp}.csv"`);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.body = stream;
  }

  return async (ctx) => {
    const request = parseListQuery(ctx.query);
    const merchantId = deps.merchantOf(ctx);
    if (wantsCsv(ctx, request.format)) return exportCsv(ctx, merchantId, request);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.lists.page(merchantId, request);
  };
}
