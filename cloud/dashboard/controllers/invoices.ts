import type Router from '@koa/router';
import { renderQrSvg } from '../../../edge/checkout/qr-svg.ts';
import { invoiceRequestOfForm } from '../invoice-form.ts';
import { renderInvoices, renderNewInvoice } from '../pages.ts';
import { refusalOf, type DashboardDeps, type PageKit } from '../page-kit.ts';

/** The latest invoices, and a new invoice created through the API's own function (plan limit, validation, codes). */
export function invoicePages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud'>): void {
  const { invoices } = deps.cloud;

  router.get('/invoices', kit.signedIn, async (ctx) => {
    const { invoices: latest } = await invoices.list(ctx.state.session.merchant, '100');
    kit.show(ctx, renderInvoices(kit.frame(ctx), latest, invoices.checkoutUrl));
  });

  router.get('/invoices/new', kit.signedIn, (ctx) => {
    kit.show(ctx, renderNewInvoice(kit.frame(ctx), { assets: invoices.enabledAssets(ctx.state.session.merchant) }));
  });

  /** A refusal keeps the form filled in. */
  router.post('/invoices', kit.signedIn, kit.checkedForm, async (ctx) => {
    const merchant = ctx.state.session.merchant;
    const assets = invoices.enabledAssets(merchant);
    const values = ctx.state.form as Record<string, string>;
    try {
      const { body, numberTexts } = invoiceRequestOfForm(values, assets);
      const invoice = await invoices.create(merchant, body, numberTexts);
      const checkoutUrl = invoice.checkout_url ?? null;
      const amount = 'amount_btc' in invoice ? invoice.amount_btc : invoice.amount_usdc;
      const qrSvg = await renderQrSvg(checkoutUrl ?? invoice.qr_uri);
      kit.show(ctx, renderNewInvoice(kit.frame(ctx, undefined, true), { assets, created: { invoiceId: invoice.invoice_id, amount, asset: invoice.asset, checkoutUrl, qrSvg } }), 201);
    } catch (error) {
      const { notice, status } = refusalOf(error);
      kit.show(ctx, renderNewInvoice(kit.frame(ctx, notice), { assets, values }), status);
    }
  });
}
