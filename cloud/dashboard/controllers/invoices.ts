import type Router from '@koa/router';
import type { Context } from 'koa';
import { renderQrSvg } from '../../../edge/checkout/qr-svg.ts';
import { invoiceListHandler } from '../../../edge/http/invoice-list-endpoint.ts';
import { parseListQuery, type ListRequest } from '../../../core/invoices/list-query.ts';
import type { DashboardSession } from '../session-store.ts';
import { invoiceRequestOfForm, paidWithChoices } from '../invoice-form.ts';
import { renderInvoices, renderNewInvoice, type InvoiceFilterValues, type Notice } from '../pages.ts';
import { refusalOf, type DashboardDeps, type PageKit } from '../page-kit.ts';

/** Invoices a page of the dashboard shows. */
export const DASHBOARD_PAGE_SIZE = 50;

const FILTERS = ['q', 'status', 'chain', 'asset', 'created_from', 'created_to'] as const;

/** The filters and cursor the page's form and links send; an empty field is no filter. */
function pageQuery(ctx: Context): Record<string, string> {
  return Object.fromEntries(
    Object.entries(ctx.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== '' && entry[0] !== 'format'),
  );
}

/** The list, filtered, searched and paged; its export; and a new invoice created through the API's own function (plan limit, validation, codes). */
export function invoicePages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud' | 'clock' | 'logger'>): void {
  const { invoices } = deps.cloud;
  const merchantOf = (ctx: Context) => (ctx.state.session as DashboardSession).merchant.merchant_id;

  router.get('/invoices', kit.signedIn, async (ctx) => {
    const query = pageQuery(ctx);
    let request: ListRequest = parseListQuery({});
    let notice: Notice | undefined;
    try {
      request = parseListQuery(query);
    } catch (error) {
      notice = refusalOf(error).notice;
    }
    const { invoices: entries, next_cursor } = await invoices.lists.page(merchantOf(ctx), { ...request, limit: query.limit === undefined ? DASHBOARD_PAGE_SIZE : request.limit });
    const filters: InvoiceFilterValues = notice ? {} : Object.fromEntries(FILTERS.flatMap((name) => (query[name] ? [[name, query[name]]] : [])));
    kit.show(ctx, renderInvoices(kit.frame(ctx, notice, true), { invoices: entries, filters, nextCursor: next_cursor ?? null, later: !notice && request.after !== null }), notice ? 400 : 200);
  });

  /** The CSV of what the page's filters match, as the API exports it. */
  const exportCsv = invoiceListHandler({ lists: invoices.lists, exports: invoices.exports, clock: deps.clock, logger: deps.logger, merchantOf });
  router.get('/invoices/export', kit.signedIn, async (ctx, next) => {
    ctx.query = { ...pageQuery(ctx), format: 'csv' };
    await exportCsv(ctx, next);
  });

  /** What the form offers the merchant: its assets, and how its Bitcoin invoices may be paid. */
  const formChoices = (merchant: DashboardSession['merchant']) => {
    const assets = invoices.enabledAssets(merchant);
    return { assets, paidWith: paidWithChoices(assets, invoices.lightningOnly(merchant)) };
  };

  router.get('/invoices/new', kit.signedIn, (ctx) => {
    kit.show(ctx, renderNewInvoice(kit.frame(ctx), formChoices(ctx.state.session.merchant)));
  });

  /** A refusal keeps the form filled in. */
  router.post('/invoices', kit.signedIn, kit.checkedForm, async (ctx) => {
    const merchant = ctx.state.session.merchant;
    const choices = formChoices(merchant);
    const values = ctx.state.form as Record<string, string>;
    try {
      const { body, numberTexts } = invoiceRequestOfForm(values, choices.assets);
      const invoice = await invoices.create(merchant, body, numberTexts);
      const checkoutUrl = invoice.checkout_url ?? null;
      const amount = 'amount_btc' in invoice ? invoice.amount_btc : invoice.amount_usdc;
      const qrSvg = await renderQrSvg(checkoutUrl ?? invoice.qr_uri);
      kit.show(ctx, renderNewInvoice(kit.frame(ctx, undefined, true), { ...choices, created: { invoiceId: invoice.invoice_id, amount, asset: invoice.asset, checkoutUrl, qrSvg } }), 201);
    } catch (error) {
      const { notice, status } = refusalOf(error);
      kit.show(ctx, renderNewInvoice(kit.frame(ctx, notice), { ...choices, values }), status);
    }
  });
}
