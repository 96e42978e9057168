import { finalCheckoutStatuses, type CheckoutView } from '../../shared/checkout.ts';
import { networkLabel, type InvoiceStatus } from '../../shared/index.ts';
import type { ChainModule } from '../../core/invoices/chain-module.ts';

export interface PageAssets {
  cssUrl: string;
  cssIntegrity: string;
  jsUrl: string;
  jsIntegrity: string;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Every value from the view goes through this: the shop name is merchant-chosen text. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]!);

/** What the page knows of the view's chain: how to speak of its invoices. */
export type PageChain = Pick<ChainModule, 'display' | 'confirmingTakes'>;

/** What the page asks the payer to send: the whole amount, or only the rest once part of it arrived. */
function amountToSend(view: CheckoutView, chain: PageChain): string {
  return chain.display.readableAmount(view, view.status === 'partial' ? view.amount_due : chain.display.amountOf(view));
}

/** Expiry as a UTC clock time for the page without JavaScript; the script shows it in the payer's time zone. */
const utcMinute = (iso: string) => `${iso.slice(11, 16)} UTC, ${iso.slice(0, 10)}`;


/**
 * The address in groups of four characters, each a separate box: it wraps between groups only, and
 * its text (what the copy button and a selection copy) is still the exact address, without spaces.
 */
const groupedAddress = (address: string) =>
  (address.match(/.{1,4}/g) ?? []).map((group) => `<span class="group">${escapeHtml(group)}</span>`).join('<wbr>');

/**
 * "Return to <shop>" in the paid block: the view carries the link only once the invoice is
 * confirmed, so before that the paragraph is there without one, hidden, for the script to fill
 * when the status turns (rel=noreferrer: the shop learns nothing of the checkout's address).
 */
function returnLink(view: CheckoutView): string {
  const href = view.redirect_url ? ` href="${escapeHtml(view.redirect_url)}"` : '';
  return `<p class="return" id="return"${href ? '' : ' hidden'}><a id="return-link" rel="noreferrer"${href}>Return to ${escapeHtml(view.shop_name)}</a></p>`;
}

/** Which status block shows: a pending invoice whose payment is seen has one of its own. */
type PageState = InvoiceStatus | 'seen';
const pageState = (view: CheckoutView): PageState => (view.payment_seen && view.status === 'pending' ? 'seen' : view.status);
/** States in which the page still asks for a payment (shows amount, address and QR code). */
const payingStates: readonly PageState[] = ['pending', 'partial'];

function statusBlocks(view: CheckoutView, chain: PageChain): string {
  const shop = escapeHtml(view.shop_name);
  const txLink = view.tx_url ? ` href="${escapeHtml(view.tx_url)}" rel="noreferrer"` : '';
  const blocks: Record<PageState, { title: string; body: string }> = {
    pending: {
      title: 'Waiting for payment',
      body: '<p>Send the amount below to the address below. This page updates by itself when your payment is seen.</p>',
    },
    partial: {
      title: 'Partly paid',
      body: `<p>A payment arrived but does not cover the full amount yet. Send the remaining ${escapeHtml(chain.display.readableAmount(view, view.amount_due))} ${view.asset} to the same address.</p>`,
    },
    seen: {
      title: 'Payment received',
      body: `<p>Your payment is on its way: ${chain.confirmingTakes(chain.display.networkOf(view).name)}. This page turns to Paid by itself. Do not pay again.</p>`,
    },
    confirmed: {
      title: 'Paid',
      body: `<p>Your payment is confirmed. Thank you!</p><p class="tx">Transaction: <a data-field="tx_url"${txLink}>${escapeHtml(view.tx_hash ?? '')}</a></p>${returnLink(view)}`,
    },
    expired: {
      title: 'Expired',
      body: `<p>This invoice expired before a payment arrived. Do not send anything to its address now; ask ${shop} for a new invoice.</p>`,
    },
    failed: {
      title: 'Could not be completed',
      body: `<p>This invoice could not be completed. Please contact ${shop}.</p>`,
    },
  };
  return Object.entries(blocks)
    .map(([status, { title, body }]) => {
      const final = finalCheckoutStatuses.includes(status as InvoiceStatus) ? ' data-final' : '';
      const paying = payingStates.includes(status as PageState) ? ' data-pay' : '';
      const hidden = status === pageState(view) ? '' : ' hidden';
      return `<div class="state state-${status}" data-when="${status}"${final}${paying}${hidden}><h2>${title}</h2>${body}</div>`;
    })
    .join('\n');
}

function amountNote(view: CheckoutView, chain: PageChain): string {
  const exact = chain.display.exactAmountOf(view);
  if (exact !== null) {
    return `<p class="note note-exact" id="amount-note"><strong>Send exactly ${escapeHtml(exact)} ${view.asset}.</strong> The last digits identify your payment: any other amount, even rounded, is not matched to this invoice.</p>`;
  }
  return `<p class="note" id="amount-note">Send at least this amount; the ${chain.display.feeName} comes on top.</p>`;
}

function head(title: string, assets: PageAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="stylesheet" href="${escapeHtml(assets.cssUrl)}" integrity="${assets.cssIntegrity}">
<script src="${escapeHtml(assets.jsUrl)}" integrity="${assets.jsIntegrity}" defer></script>
</head>`;
}

/** The page's heading in each state (the title is the heading and the shop): a paid page says Paid. */
function headings(view: CheckoutView, chain: PageChain): Record<PageState, string> {
  const full = `${chain.display.readableAmount(view, chain.display.amountOf(view))} ${view.asset}`;
  return {
    pending: `Pay ${amountToSend(view, chain)} ${view.asset}`,
    partial: `Pay ${amountToSend(view, chain)} ${view.asset}`,
    seen: `Payment of ${full} received`,
    confirmed: `Paid ${full}`,
    expired: `Expired: ${full} not paid`,
    failed: `Not completed: ${full}`,
  };
}

/** "$12.50", "€25.00", "¥3,000": the invoice's fiat price beside the asset amount, from its exact decimal text. */
export function fiatPrice(amount: string, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount as unknown as number);
}

/** The price the invoice was made from, when it had one; a sandbox rate is said to be one. */
function priceLine(view: CheckoutView): string {
  if (!view.price_amount || !view.price_currency) return '';
  const sandbox = view.rate_sources?.length && view.rate_sources.every((source) => source.startsWith('sandbox')) ? ' (sandbox rate, not a market price)' : '';
  return `<p class="fiat" id="fiat-price">${escapeHtml(fiatPrice(view.price_amount, view.price_currency))}${escapeHtml(sandbox)}</p>
`;
}

/**
 * The whole checkout page, rendered on the server with the current status: it reads right without
 * JavaScript, and the small script only refreshes it (status, countdown) and adds copy buttons.
 */
export function renderCheckoutPage(view: CheckoutView, options: { chain: PageChain; viewUrl: string; qrSvg: string; assets: PageAssets }): string {
  const { chain } = options;
  const shop = escapeHtml(view.shop_name);
  const amount = escapeHtml(amountToSend(view, chain));
  const state = pageState(view);
  const whileOpen = payingStates.includes(state) ? ' data-while-open' : ' data-while-open hidden';
  const network = chain.display.networkOf(view);
  const heading = headings(view, chain);
  const headingData = Object.entries(heading)
    .map(([when, text]) => ` data-heading-${when}="${escapeHtml(text)}"`)
    .join('');
  const testNetwork = network.note ? `<p class="test-network" id="network-note">${escapeHtml(networkLabel(network))}</p>\n` : '';
  const memo = view.memo ? `<p class="memo" id="memo"><strong>Memo:</strong> ${escapeHtml(view.memo)}</p>\n` : '';
  return `${head(`${escapeHtml(heading[state])} · ${shop}`, options.assets)}
<body>
<main class="checkout" data-view-url="${escapeHtml(options.viewUrl)}" data-state="${state}" data-amount-due="${escapeHtml(view.amount_due)}" data-expires-at="${view.expires_at}" data-server-time="${view.server_time}" data-shop="${shop}">
<header>
<p class="shop">${shop}</p>
${testNetwork}<h1 id="heading"${headingData}>${escapeHtml(heading[state])}</h1>
${memo}</header>
<div class="status" role="status" aria-live="polite" aria-atomic="true">
${statusBlocks(view, chain)}
</div>
<noscript><p class="note">Reload this page to see the latest status.</p></noscript>
<section class="pay" aria-label="Payment details"${whileOpen}>
<dl>
<div class="field">
<dt id="amount-label">Amount</dt>
<dd><code class="value" id="amount" aria-describedby="amount-note">${amount}</code> <span class="unit">${view.asset}</span>
<button type="button" class="copy" data-copy="amount" aria-label="Copy amount" hidden>Copy</button>
${priceLine(view)}${amountNote(view, chain)}</dd>
</div>
<div class="field">
<dt>Network</dt>
<dd id="network">${escapeHtml(chain.display.sendOn(view, network))}</dd>
</div>
<div class="field">
<dt id="address-label">Address</dt>
<dd class="address-row"><code class="value address" id="address">${groupedAddress(view.receive_address)}</code>
<button type="button" class="copy" data-copy="address" aria-label="Copy address" hidden>Copy</button></dd>
</div>
</dl>
<figure class="qr">
<div role="img" aria-label="QR code of the payment request: ${amount} ${view.asset} to ${escapeHtml(view.receive_address)}">${options.qrSvg}</div>
<figcaption>Scan with your wallet app, or <a href="${escapeHtml(view.qr_uri)}">open it in a wallet on this device</a>.</figcaption>
</figure>
<p class="expiry">Pay before <time id="expires-at" datetime="${view.expires_at}">${utcMinute(view.expires_at)}</time><span class="countdown" hidden> · <span id="countdown-label">Time left to pay:</span> <span id="countdown"></span></span></p>
</section>
<p class="copied visually-hidden" id="copy-note" aria-live="polite"></p>
<footer>
<p>Invoice <code>${escapeHtml(view.invoice_id)}</code>${
    view.verify_url ? ` · <a href="${escapeHtml(view.verify_url)}" rel="noreferrer">Check the address on a block explorer</a>` : ''
  }</p>
</footer>
</main>
</body>
</html>
`;
}

/** A readable page for a checkout link that cannot be shown (unknown invoice, storage failure). */
export function renderCheckoutErrorPage(title: string, message: string, assets: PageAssets): string {
  return `${head(escapeHtml(title), assets)}
<body>
<main class="checkout">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
</main>
</body>
</html>
`;
}
