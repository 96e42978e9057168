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

/** How the page offers the invoice: to its address, over Lightning, or both (a tab for each). */
type PayWays = 'onchain' | 'lightning' | 'both';

/**
 * The BOLT11 invoice the page offers, if any. A view that is partly paid on-chain gets none: the
 * BOLT11 asks for the whole amount, so paying it would pay twice.
 */
export function lightningInvoiceOf(view: CheckoutView): string | null {
  if (!('lightning_invoice' in view) || !view.lightning_invoice || view.status === 'partial') return null;
  return view.lightning_invoice;
}

function payWaysOf(view: CheckoutView): PayWays {
  const lightning = lightningInvoiceOf(view);
  if (!lightning) return 'onchain';
  // A Lightning-only invoice has no address: its receive_address repeats the BOLT11.
  return view.receive_address === lightning ? 'lightning' : 'both';
}

/**
 * What the Lightning QR code encodes: the `lightning:` URI in capitals, which wallets read, and
 * which a QR code holds in its compact alphanumeric mode (a BOLT11 is case-insensitive).
 */
export const lightningQrText = (bolt11: string) => `lightning:${bolt11}`.toUpperCase();

/** The text of each QR code the page shows: the payment URI's on-chain, the BOLT11's for Lightning. */
export function pageQrTexts(view: CheckoutView): { onchain: string | null; lightning: string | null } {
  const ways = payWaysOf(view);
  const lightning = lightningInvoiceOf(view);
  return { onchain: ways === 'lightning' ? null : view.qr_uri, lightning: lightning && lightningQrText(lightning) };
}

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
  // A Lightning payment has no transaction: the line shows once the script is given one.
  const txHidden = view.tx_hash ? '' : ' hidden';
  const sendTo: Record<PayWays, string> = {
    onchain: 'Send the amount below to the address below.',
    both: 'Send the amount below to the address below, or pay the Lightning invoice.',
    lightning: 'Pay the Lightning invoice below.',
  };
  const blocks: Record<PageState, { title: string; body: string }> = {
    pending: {
      title: 'Waiting for payment',
      body: `<p>${sendTo[payWaysOf(view)]} This page updates by itself when your payment is seen.</p>`,
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
      body: `<p>Your payment is confirmed. Thank you!</p><p class="tx"${txHidden}>Transaction: <a data-field="tx_url"${txLink}>${escapeHtml(view.tx_hash ?? '')}</a></p>${returnLink(view)}`,
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
  if (payWaysOf(view) === 'lightning') return '<p class="note" id="amount-note">The Lightning invoice asks for exactly this amount; your wallet fills it in.</p>';
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

export interface PageOptions {
  chain: PageChain;
  viewUrl: string;
  /** The QR codes of pageQrTexts as SVG: the on-chain one, and the Lightning one when the page offers Lightning. */
  qrSvg: string;
  lightningQrSvg?: string;
  assets: PageAssets;
}

/** Where to send on-chain: the address with its copy button, and the payment URI's QR code. */
function onchainDetails(view: CheckoutView, amount: string, qrSvg: string): string {
  return `<dl>
<div class="field">
<dt id="address-label">Address</dt>
<dd class="address-row"><code class="value address" id="address">${groupedAddress(view.receive_address)}</code>
<button type="button" class="copy" data-copy="address" aria-label="Copy address" hidden>Copy</button></dd>
</div>
</dl>
<figure class="qr">
<div role="img" aria-label="QR code of the payment request: ${amount} ${view.asset} to ${escapeHtml(view.receive_address)}">${qrSvg}</div>
<figcaption>Scan with your wallet app, or <a href="${escapeHtml(view.qr_uri)}">open it in a wallet on this device</a>.</figcaption>
</figure>`;
}

/** What to pay over Lightning: the BOLT11's QR code, a link that opens a wallet on this device, the BOLT11 with its copy button. */
function lightningDetails(view: CheckoutView, bolt11: string, amount: string, qrSvg: string): string {
  return `<figure class="qr">
<div role="img" aria-label="QR code of the Lightning invoice for ${amount} ${view.asset}">${qrSvg}</div>
<figcaption>Scan with a Lightning wallet.</figcaption>
</figure>
<p class="wallet-link"><a class="button" id="lightning-link" href="lightning:${escapeHtml(bolt11)}">Pay with a Lightning wallet</a></p>
<dl>
<div class="field">
<dt id="lightning-label">Lightning invoice</dt>
<dd class="address-row"><code class="value bolt11" id="lightning-invoice">${escapeHtml(bolt11)}</code>
<button type="button" class="copy" data-copy="lightning-invoice" aria-label="Copy Lightning invoice" hidden>Copy</button></dd>
</div>
</dl>`;
}

/**
 * The ways to pay: on-chain alone, Lightning alone, or both as two tabs. The tabs are the script's
 * to show: without it both panels show, one under the other, and either way still works.
 */
function payMethods(view: CheckoutView, amount: string, options: PageOptions): string {
  const bolt11 = lightningInvoiceOf(view);
  const ways = payWaysOf(view);
  if (ways === 'onchain' || !bolt11) return onchainDetails(view, amount, options.qrSvg);
  const lightning = lightningDetails(view, bolt11, amount, options.lightningQrSvg ?? '');
  if (ways === 'lightning') return lightning;
  return `<div class="methods" role="tablist" aria-label="How to pay" hidden>
<button type="button" role="tab" id="tab-onchain" aria-controls="pay-onchain" aria-selected="true">On-chain</button>
<button type="button" role="tab" id="tab-lightning" aria-controls="pay-lightning" aria-selected="false" tabindex="-1">Lightning</button>
</div>
<div class="method" role="tabpanel" id="pay-onchain" aria-labelledby="tab-onchain">
${onchainDetails(view, amount, options.qrSvg)}
</div>
<div class="method" role="tabpanel" id="pay-lightning" aria-labelledby="tab-lightning">
${lightning}
</div>`;
}

/**
 * The whole checkout page, rendered on the server with the current status: it reads right without
 * JavaScript, and the small script only refreshes it (status, countdown) and adds copy buttons.
 */
export function renderCheckoutPage(view: CheckoutView, options: PageOptions): string {
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
  const sendOn = chain.display.sendOn(view, network);
  const networkText = payWaysOf(view) === 'lightning' ? `Lightning, ${sendOn}` : sendOn;
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
<dd id="network">${escapeHtml(networkText)}</dd>
</div>
</dl>
${payMethods(view, amount, options)}
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
