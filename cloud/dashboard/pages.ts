import type * as z from 'zod';
import { chainFacts, chainNames, InvoiceStatus, listAssets, supportedAssets, type Account, type AssetId, type InvoiceListEntry } from '../../shared/index.ts';
import { escapeHtml } from '../../edge/checkout/page.ts';
import { accountPage } from '../../edge/http/dashboard-style.ts';
import { KEY_LABEL_MAX } from '../keys/api-keys.ts';
import type { DeliverySummary } from '../../core/webhooks/delivery-store.ts';
import type { ConnectedApp } from '../../core/oauth/oauth-store.ts';
import type { CardSubscription } from '../billing/card-subscription.ts';
import type { Plan } from '../billing/plans.ts';
import { DEFAULT_LIFETIME_MIN, selectedByPaymentMethods, type PaidWith } from './invoice-form.ts';
import { receiveMethodFields, signupFields, type SignupField } from './signup-form.ts';

type AccountView = z.infer<typeof Account>;
type InvoiceEntry = z.infer<typeof InvoiceListEntry>;

/** A content-hashed file the page loads, with its Subresource Integrity value. */
export interface Stylesheet {
  url: string;
  integrity: string;
}

/**
 * What every signed-in page needs: the stylesheet, the shop, the form token, and an optional notice.
 * `script` (its copy buttons) is loaded only by the pages that show something to copy.
 */
export interface PageFrame {
  css: Stylesheet;
  script?: Stylesheet;
  shopName: string;
  csrf: string;
  notice?: Notice;
}

export type Notice = { kind: 'error' | 'ok'; text: string };

const e = escapeHtml;
/** "2026-11-22 23:07 UTC": minutes are enough on a dashboard, and no script converts time zones. */
const utc = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—');
const utcMs = (ms: number | null) => (ms === null ? '—' : utc(new Date(ms).toISOString()));

export const dashboardNav = [
  ['/dashboard', 'Overview'],
  ['/dashboard/invoices', 'Invoices'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/lightning', 'Lightning'],
  ['/dashboard/keys', 'API keys'],
  ['/dashboard/apps', 'Connected apps'],
  ['/dashboard/plan', 'Plan'],
] as const;

function document(title: string, css: Stylesheet, body: string, script?: Stylesheet, head = ''): string {
  return accountPage({ title: `${title} · Service dashboard`, css, body, script, head });
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;

function noticeHtml(notice: Notice | undefined): string {
  if (!notice) return '';
  return notice.kind === 'error'
    ? `<p class="notice notice-error" role="alert">${e(notice.text)}</p>`
    : `<p class="notice notice-ok" role="status">${e(notice.text)}</p>`;
}

/** A signed-in page: navigation, sign-out form, heading, notice, content. */
function page(frame: PageFrame, path: string, title: string, content: string, head = ''): string {
  const links = dashboardNav
    .map(([href, label]) => `<a href="${href}"${href === path ? ' aria-current="page"' : ''}>${label}</a>`)
    .join('\n');
  return document(
    title,
    frame.css,
    `<header class="top">
<p class="brand">${e(frame.shopName)}</p>
<nav aria-label="Dashboard">
${links}
</nav>
<form method="post" action="/dashboard/logout" class="signout">${csrfField(frame.csrf)}<button type="submit">Sign out</button></form>
</header>
<main>
<h1>${e(title)}</h1>
${noticeHtml(frame.notice)}
${content}
</main>`,
    frame.script,
    head,
  );
}

/**
 * A value shown once (an API key, a signing secret, a link) with its copy button; the button is
 * shown by the script, and without it one click still selects the whole value.
 */
const copyable = (id: string, label: string, value: string) =>
  `<div class="copy-row"><code id="${id}" class="copy">${e(value)}</code><button type="button" class="copy-button" data-copy="${id}" aria-label="Copy ${e(label)}" hidden>Copy</button></div>`;

export function renderSignIn(options: { css: Stylesheet; csrf: string; notice?: Notice }): string {
  return document(
    'Sign in',
    options.css,
    `<main class="narrow">
<h1>Sign in</h1>
${noticeHtml(options.notice)}
<form method="post" action="/dashboard/login" class="stack">
${csrfField(options.csrf)}
<label for="api_key">API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" required spellcheck="false" placeholder="sk_…">
<p class="hint">The key you got at sign-up. No password, no wallet: the key is your login. It is not kept in the browser; a session cookie is.</p>
<button type="submit">Sign in</button>
</form>
<p>New here? <a href="/dashboard/signup">Create an account</a></p>
</main>`,
  );
}

function signupField(field: SignupField, value: string | undefined): string {
  return `<label for="${field.name}">${e(field.label)}</label>
<input id="${field.name}" name="${field.name}" type="${field.type}"${field.required ? ' required' : ''} autocomplete="${field.autocomplete}" spellcheck="false" value="${e(field.type === 'password' ? '' : (value ?? ''))}" aria-describedby="${field.name}-hint">
<p class="hint" id="${field.name}-hint">${e(field.hint)}</p>`;
}

/** The self-serve sign-up form: the sign-up API's fields, a receive method per chain; `values` refills it after a refusal. */
export function renderSignUp(options: { css: Stylesheet; csrf: string; notice?: Notice; values?: Readonly<Record<string, string>> }): string {
  const values = options.values ?? {};
  const field = (name: string) => signupField(signupFields.find((f) => f.name === name)!, values[name]);
  const receiveMethods = receiveMethodFields.map((f) => signupField(f, values[f.name])).join('\n');
  return document(
    'Create an account',
    options.css,
    `<main class="narrow">
<h1>Create an account</h1>
${noticeHtml(options.notice)}
<form method="post" action="/dashboard/signup" class="stack">
${csrfField(options.csrf)}
${field('email')}
${field('shop_name')}
<fieldset class="stack">
<legend>Where payments go: at least one</legend>
<p class="hint">Public keys and addresses only. Payments go straight to your own wallet; this service never holds a private key, and refuses one if it is sent.</p>
${receiveMethods}
${field('lightning_nwc_url')}
</fieldset>
${field('webhook_url')}
<button type="submit">Create account</button>
</form>
<p>Already have an API key? <a href="/dashboard/login">Sign in</a></p>
</main>`,
  );
}

/** After sign-up: the new key (and webhook secret) shown this once, with copy buttons; the merchant is signed in. */
export function renderWelcome(frame: PageFrame, issued: { api_key: string; webhook_secret?: string }): string {
  const secret = issued.webhook_secret
    ? `<p><strong>Webhook signing secret</strong>: verifies that webhooks come from this service.</p>
${copyable('new-secret', 'webhook secret', issued.webhook_secret)}`
    : '';
  return page(
    frame,
    '/dashboard',
    'Account created',
    `<div class="secret" role="status"><p><strong>Your API key, shown once.</strong> Copy it now and keep it somewhere safe (a secret manager): it cannot be shown again, only its hash is stored. It is your login here and the <code>X-Service-Api-Key</code> of the API.</p>
${copyable('new-key', 'API key', issued.api_key)}
${secret}</div>
<p>You are signed in. <a href="/dashboard/invoices/new">Create your first invoice</a> or <a href="/dashboard">go to the overview</a>.</p>`,
  );
}

/** A full page for a failure outside any signed-in page (expired form, unexpected error). */
export function renderMessagePage(css: Stylesheet, title: string, message: string): string {
  return document(
    title,
    css,
    `<main class="narrow">
<h1>${e(title)}</h1>
<p class="notice notice-error" role="alert">${e(message)}</p>
<p><a href="/dashboard">Back to the dashboard</a></p>
</main>`,
  );
}

export function renderOverview(frame: PageFrame, account: AccountView): string {
  const { invoices_this_month: used, monthly_limit: limit } = account.usage;
  const chains = account.chains
    .map((c) => `<li><strong>${e(chainFacts[c.chain].name)}</strong>: ${c.mode === 'xpub' ? `xpub <code>${e(c.xpub ?? '')}</code>` : `fixed address <code>${e(c.fixed_address ?? '')}</code>`}</li>`)
    .join('\n');
  return page(
    frame,
    '/dashboard',
    'Overview',
    `<dl class="cards">
<div class="card"><dt>Plan</dt><dd id="plan">${e(account.plan)}${account.plan_expires_at ? ` <span class="hint">until ${utc(account.plan_expires_at)}</span>` : ''}</dd></div>
<div class="card"><dt>Invoices this month</dt><dd><span id="usage">${used} of ${limit}</span>
<meter min="0" max="${limit}" value="${used}" aria-label="Invoices used this month">${used} of ${limit}</meter></dd></div>
<div class="card"><dt>Webhook</dt><dd>${account.webhook_url ? `<code>${e(account.webhook_url)}</code>` : 'none saved'}</dd></div>
</dl>
<h2>Chains and modes</h2>
<ul id="chains">
${chains}
</ul>
<p class="hint">Merchant id <code>${e(account.merchant_id)}</code> · ${e(account.email)} · since ${utc(account.created_at)}</p>`,
  );
}

/** How often the invoice list reloads itself, so each status is current without a script. */
export const INVOICE_LIST_REFRESH_S = 10;

/** The filters of the invoice page, as its form sends them (only those given). */
export type InvoiceFilterValues = Partial<Record<'q' | 'status' | 'chain' | 'asset' | 'created_from' | 'created_to', string>>;

/** One page of the invoice list: its entries, the filters that chose them, and where the next page starts. */
export interface InvoicePage {
  invoices: InvoiceEntry[];
  filters: InvoiceFilterValues;
  nextCursor: string | null;
  /** Whether this page follows another (a cursor was given). */
  later: boolean;
}

const queryOf = (values: Readonly<Record<string, string | undefined>>) =>
  new URLSearchParams(Object.entries(values).filter((entry): entry is [string, string] => !!entry[1])).toString();

function choice(name: string, label: string, options: readonly string[], current: string | undefined): string {
  const items = options.map((option) => `<option value="${e(option)}"${option === current ? ' selected' : ''}>${e(option)}</option>`).join('');
  return `<div><label for="${name}">${label}</label><select id="${name}" name="${name}"><option value="">Any</option>${items}</select></div>`;
}

function filterForm(filters: InvoiceFilterValues): string {
  const date = (name: 'created_from' | 'created_to', label: string) =>
    `<div><label for="${name}">${label}</label><input id="${name}" name="${name}" type="date" value="${e(filters[name] ?? '')}"></div>`;
  return `<form method="get" action="/dashboard/invoices" class="filters" role="search" aria-label="Find invoices">
<div class="search"><label for="q">Search</label><input id="q" name="q" type="search" maxlength="200" spellcheck="false" value="${e(filters.q ?? '')}" aria-describedby="q-hint">
<span class="hint" id="q-hint">An invoice id or order id (exact), or a receive address.</span></div>
${choice('status', 'Status', InvoiceStatus.options, filters.status)}
${choice('chain', 'Chain', chainNames, filters.chain)}
${choice('asset', 'Asset', listAssets, filters.asset)}
${date('created_from', 'Created from')}
${date('created_to', 'Created before')}
<div><button type="submit">Find</button></div>
</form>`;
}

/**
 * The invoice list: filters and search, a page of entries with the link to the next, and a CSV
 * export of everything the filters match. The newest page without filters refreshes itself (the
 * page script reloads it, never while the filters are in use, and offers a pause); a filtered or
 * later page does not.
 */
export function renderInvoices(frame: PageFrame, list: InvoicePage): string {
  const { invoices, filters } = list;
  const filtered = Object.values(filters).some(Boolean);
  const actions = `<div class="actions"><a class="button" href="/dashboard/invoices/new">Create an invoice</a>
<a id="export" href="/dashboard/invoices/export?${queryOf({ ...filters, format: 'csv' })}" download>Export ${filtered ? 'these invoices' : 'all invoices'} as CSV</a>${
    filtered || list.later ? '\n<a href="/dashboard/invoices">Newest invoices, no filters</a>' : ''
  }</div>`;
  const live = !filtered && !list.later;
  const updates = live
    ? `\n<p class="actions">With scripts on, the list refreshes every ${INVOICE_LIST_REFRESH_S} seconds. <button type="button" id="pause-updates" class="secondary" aria-pressed="false" hidden>Pause updates</button></p>`
    : '';
  const top = `${actions}\n${filterForm(filters)}${updates}`;
  if (invoices.length === 0) {
    const none = filtered || list.later ? '<p id="no-invoices">No invoices match these filters.</p>' : '<p id="no-invoices">No invoices yet. Create one here, or with <code>POST /api/v1/invoice</code>.</p>';
    return page(frame, '/dashboard/invoices', 'Invoices', `${top}\n${none}`);
  }
  const rows = invoices
    .map((invoice) => {
      const url = invoice.checkout_url ?? null;
      const id = `<code>${e(invoice.invoice_id)}</code>`;
      return `<tr>
<td data-label="Invoice">${url ? `<a href="${e(url)}">${id}</a>` : id}</td>
<td data-label="Status"><span class="status status-${e(invoice.status)}">${e(invoice.status)}</span></td>
<td class="num" data-label="Amount">${e(invoice.amount)} ${e(invoice.asset)}</td>
<td data-label="Created">${utc(invoice.created_at)}</td>
<td data-label="Payer's page">${url ? `<a href="${e(url)}">Checkout page</a>` : '<span class="hint">hosted checkout off</span>'}</td>
</tr>`;
    })
    .join('\n');
  const caption = filtered ? `${invoices.length} matching invoices, newest first.` : `${list.later ? 'Earlier' : 'Latest'} ${invoices.length} invoices, newest first.`;
  const next = list.nextCursor ? `<p><a id="next-page" href="/dashboard/invoices?${queryOf({ ...filters, cursor: list.nextCursor })}">Next page (older invoices)</a></p>` : '';
  return page(
    frame,
    '/dashboard/invoices',
    'Invoices',
    `${top}
<div class="scroll"><table id="invoices"${live ? ` data-refresh-s="${INVOICE_LIST_REFRESH_S}"` : ''}>
<caption>${caption}</caption>
<thead><tr><th scope="col">Invoice</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Created</th><th scope="col">Payer's page</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
${next}`,
  );
}

/** An invoice just created from the dashboard: its payer's page to copy or open, and its QR code. */
export interface CreatedFromDashboard {
  invoiceId: string;
  amount: string;
  asset: string;
  checkoutUrl: string | null;
  /** The QR code (SVG) of the checkout URL, or of the payment URI when hosted checkout is off. */
  qrSvg: string;
}

const assetLabel = (id: AssetId) => {
  const asset = supportedAssets.find((a) => a.id === id)!;
  const { name, unit } = chainFacts[asset.chain];
  return `${asset.asset} (on ${name}), amount in ${unit === 'sats' ? 'sats' : 'US dollars'}`;
};

const paidWithLabels: Record<PaidWith, string> = { 'onchain-or-lightning': 'On-chain or Lightning', lightning: 'Lightning only', onchain: 'On-chain only' };

/**
 * How a Bitcoin invoice may be paid: a choice when the merchant has several, a sentence when
 * Lightning is all it has, nothing without Lightning (its Bitcoin invoices are on-chain only).
 */
function paidWithField(choices: readonly PaidWith[], chosen: string | undefined): string {
  if (choices.length === 0) return '';
  if (choices.length === 1) return `<p class="hint" id="paid-with">Bitcoin invoices are paid with ${paidWithLabels[choices[0]!]}: this account has a Lightning wallet and no Bitcoin key.</p>`;
  const options = choices.map((choice) => `<option value="${choice}"${chosen === choice ? ' selected' : ''}>${paidWithLabels[choice]}</option>`).join('');
  return `<label for="paid_with">Paid with (Bitcoin invoices)</label>
<select id="paid_with" name="paid_with" aria-describedby="paid-with-hint">${options}</select>
<p class="hint" id="paid-with-hint">On-chain or Lightning lets the payer choose. Lightning only gives no address to pay; on-chain only gives no Lightning invoice. USDC and USDT invoices ignore it.</p>`;
}

export function renderNewInvoice(
  frame: PageFrame,
  options: { assets: readonly AssetId[]; paidWith: readonly PaidWith[]; created?: CreatedFromDashboard; values?: Record<string, string> },
): string {
  const values = options.values ?? {};
  const created = options.created;
  const shown = created
    ? `<div class="secret created" role="status" id="created"><p><strong>Invoice <code>${e(created.invoiceId)}</code> created: ${e(created.amount)} ${e(created.asset)}.</strong> ${
        created.checkoutUrl ? 'Send your customer this link, or let them scan the code.' : 'Hosted checkout is off on this service: let your customer scan the payment request.'
      }</p>
${created.checkoutUrl ? `${copyable('checkout-url', 'checkout link', created.checkoutUrl)}\n<p><a id="open-checkout" href="${e(created.checkoutUrl)}" target="_blank" rel="noopener">Open the checkout page</a></p>` : ''}
<figure class="qr"><div role="img" aria-label="QR code of ${created.checkoutUrl ? 'the checkout link' : 'the payment request'}">${created.qrSvg}</div></figure></div>`
    : '';
  if (options.assets.length === 0) {
    return page(frame, '/dashboard/invoices', 'New invoice', '<p class="notice notice-error">Your account has no asset to invoice in: it has no account key or receive address this service can use.</p>');
  }
  // Bitcoin over Lightning is Bitcoin with a "Paid with" choice, not an asset of its own.
  const assetOptions = options.assets
    .filter((id) => !selectedByPaymentMethods(id))
    .map((id) => `<option value="${id}"${values.asset === id ? ' selected' : ''}>${e(assetLabel(id))}</option>`)
    .join('');
  return page(
    frame,
    '/dashboard/invoices',
    'New invoice',
    `${shown}
<form method="post" action="/dashboard/invoices" class="stack">
${csrfField(frame.csrf)}
<label for="asset">Asset</label>
<select id="asset" name="asset">${assetOptions}</select>
${paidWithField(options.paidWith, values.paid_with)}
<label for="amount">Amount</label>
<input id="amount" name="amount" type="text" inputmode="decimal" required spellcheck="false" value="${e(values.amount ?? '')}" aria-describedby="amount-hint">
<p class="hint" id="amount-hint">Bitcoin: a whole number of sats (100,000,000 sats = 1 BTC), e.g. 50000. USDC and USDT: US dollars, e.g. 12.50.</p>
<label for="memo">Memo (optional)</label>
<input id="memo" name="memo" type="text" maxlength="200" value="${e(values.memo ?? '')}" aria-describedby="memo-hint">
<p class="hint" id="memo-hint">Shown to the payer on the checkout page (on Bitcoin also in their wallet). At most 200 characters.</p>
<label for="lifetime_min">Lifetime in minutes (optional)</label>
<input id="lifetime_min" name="lifetime_min" type="text" inputmode="numeric" spellcheck="false" value="${e(values.lifetime_min ?? '')}" placeholder="${DEFAULT_LIFETIME_MIN}" aria-describedby="lifetime-hint">
<p class="hint" id="lifetime-hint">How long the invoice can be paid; ${DEFAULT_LIFETIME_MIN} minutes when empty. USDT invoices always live one hour.</p>
<button type="submit">Create invoice</button>
</form>
<p><a href="/dashboard/invoices">Back to the invoices</a></p>`,
  );
}

export function renderWebhooks(frame: PageFrame, options: { webhookUrl: string | null; deliveries: DeliverySummary[]; newSecret?: string }): string {
  const secret = options.newSecret
    ? `<div class="secret" role="status"><p><strong>New signing secret, shown once.</strong> Store it now; the previous secret no longer verifies.</p>
<p><code id="new-secret">${e(options.newSecret)}</code></p></div>`
    : '';
  const rotate = options.webhookUrl
    ? `<form method="post" action="/dashboard/webhooks/rotate" class="inline">${csrfField(frame.csrf)}<button type="submit">Rotate secret</button></form>`
    : '';
  const rows = options.deliveries
    .map(
      (d) => `<tr>
<td data-label="Event"><code>${e(d.eventId)}</code></td>
<td data-label="Type">${e(d.type)}</td>
<td data-label="Status"><span class="status status-${d.status}">${d.status}</span></td>
<td class="num" data-label="Attempts">${d.attempts}</td>
<td data-label="Last answer">${d.lastHttpStatus ?? '—'}${d.lastError ? ` <span class="hint">${e(d.lastError)}</span>` : ''}</td>
<td data-label="Last attempt">${utcMs(d.lastAttemptAt)}</td>
<td>${
        d.status === 'pending'
          ? '<span class="hint">queued</span>'
          : `<form method="post" action="/dashboard/webhooks/resend" class="inline">${csrfField(frame.csrf)}<input type="hidden" name="event_id" value="${e(d.eventId)}"><button type="submit">Re-send</button></form>`
      }</td>
</tr>`,
    )
    .join('\n');
  const table = options.deliveries.length
    ? `<div class="scroll"><table id="deliveries">
<caption>Latest deliveries, newest first</caption>
<thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Last attempt</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p>No deliveries yet.</p>';
  return page(
    frame,
    '/dashboard/webhooks',
    'Webhooks',
    `${secret}
<form method="post" action="/dashboard/webhooks" class="stack">
${csrfField(frame.csrf)}
<label for="webhook_url">Webhook URL</label>
<input id="webhook_url" name="webhook_url" type="url" inputmode="url" required value="${e(options.webhookUrl ?? '')}" placeholder="https://example.com/hooks/service">
<p class="hint">https on the default port, public addresses only. Saving issues a new signing secret.</p>
<button type="submit">Save</button>
</form>
${rotate}
<h2>Recent deliveries</h2>
${table}`,
  );
}

/** The merchant's own Lightning wallet: the saved connection shortened (never its secret), a field to paste a new one, and removal. */
export function renderLightning(frame: PageFrame, options: { lightning: AccountView['lightning'] }): string {
  const problem = options.lightning?.problem;
  const trouble = problem
    ? `<p class="notice notice-error" id="lightning-problem">Since ${utc(problem.since)}, Bitcoin invoices go out on-chain only: ${e(problem.reason)}</p>\n`
    : '';
  const saved = options.lightning
    ? `${trouble}<p role="status">Connected: wallet <code>${e(options.lightning.wallet)}</code> on ${e(options.lightning.network)}, through ${options.lightning.relays.map((relay) => `<code>${e(relay)}</code>`).join(', ')}. Bitcoin invoices carry a Lightning invoice from this wallet.</p>
<form method="post" action="/dashboard/lightning/remove" class="inline">${csrfField(frame.csrf)}<button type="submit">Disconnect</button></form>`
    : '<p>No wallet connected: Bitcoin invoices are paid on-chain only.</p>';
  return page(
    frame,
    '/dashboard/lightning',
    'Lightning',
    `${saved}
<form method="post" action="/dashboard/lightning" class="stack">
${csrfField(frame.csrf)}
<label for="nwc_url">Nostr Wallet Connect connection</label>
<input id="nwc_url" name="nwc_url" type="password" autocomplete="off" required placeholder="nostr+walletconnect://…" aria-describedby="nwc-hint">
<p class="hint" id="nwc-hint">In your wallet (Alby Hub, Zeus, Coinos, Primal…), create a connection that may only create and look up invoices: no payment permission, no budget. The service checks it and refuses one that could spend. It is stored as a secret and never shown again.</p>
<button type="submit">Connect</button>
</form>`,
  );
}

type KeyView = AccountView['api_keys'][number];
/** A key just issued: the full key is in this one response only. */
export interface IssuedKey {
  key: string;
  prefix: string;
  label: string;
}

const revokeHref = (prefix: string) => `/dashboard/keys/revoke?prefix=${encodeURIComponent(prefix)}`;

export function renderKeys(frame: PageFrame, keys: KeyView[], issued?: IssuedKey): string {
  const active = keys.filter((k) => !k.revoked).length;
  const shown = issued
    ? `<div class="secret" role="status"><p><strong>New API key “${e(issued.label)}”, shown once.</strong> Copy it now and keep it somewhere safe (a secret manager): it cannot be shown again, only its hash is stored. It works at once, on <code>/api/v1</code> and for signing in here.</p>
<p><code id="new-key" class="copy">${e(issued.key)}</code></p></div>`
    : '';
  const action = (k: KeyView) => {
    if (k.revoked) return '';
    if (active === 1) return '<span class="hint">your only active key</span>';
    return `<a href="${e(revokeHref(k.prefix))}" aria-label="Revoke ${e(k.prefix)}… (${e(k.label)})">Revoke…</a>`;
  };
  const rows = keys
    .map(
      (k) => `<tr>
<td data-label="Prefix"><code>${e(k.prefix)}…</code></td>
<td data-label="Label">${e(k.label)}${k.scopes ? ` <span class="hint">(${k.scopes.map(e).join(', ')})</span>` : ''}</td>
<td data-label="Created">${utc(k.created_at)}</td>
<td data-label="State">${k.revoked ? '<span class="status status-failed">revoked</span>' : '<span class="status status-confirmed">active</span>'}</td>
<td>${action(k)}</td>
</tr>`,
    )
    .join('\n');
  return page(
    frame,
    '/dashboard/keys',
    'API keys',
    `${shown}
<div class="scroll"><table id="keys">
<thead><tr><th scope="col">Prefix</th><th scope="col">Label</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
<p class="hint">Only the first characters of a key are kept for display; the full key is shown once, when it is issued. To replace a leaked key, issue a new one, switch your programs to it, then revoke the old one. The last active key cannot be revoked.</p>
<h2>Issue a new key</h2>
<form method="post" action="/dashboard/keys" class="stack">
${csrfField(frame.csrf)}
<label for="label">Label</label>
<input id="label" name="label" type="text" required maxlength="${KEY_LABEL_MAX}" spellcheck="false" placeholder="e.g. shop backend">
<p class="hint">1-${KEY_LABEL_MAX} characters, to tell your keys apart.</p>
<label for="access">Access</label>
<select id="access" name="access">
<option value="full">Full access (account, webhooks, keys, invoices)</option>
<option value="read">Read-only: read invoices and wait for payment</option>
<option value="create">Create-only: create invoices</option>
</select>
<p class="hint">A scoped key works on the API and the MCP endpoint within its scope only; it cannot sign in here.</p>
<button type="submit">Issue key</button>
</form>`,
  );
}

/** The confirm step of a revocation: what stops working, and a way back. */
export function renderRevokeKey(frame: PageFrame, key: KeyView): string {
  return page(
    frame,
    '/dashboard/keys',
    'Revoke API key',
    `<p>Revoke the key <code>${e(key.prefix)}…</code> “${e(key.label)}”, created ${utc(key.created_at)}?</p>
<p>From the next request on, every program still using it gets <code>401 unauthorized</code>, dashboard sessions signed in with it end, and so does every connected app approved with it. This cannot be undone.</p>
<form method="post" action="/dashboard/keys/revoke" class="stack">
${csrfField(frame.csrf)}<input type="hidden" name="prefix" value="${e(key.prefix)}">
<button type="submit" class="danger">Revoke ${e(key.prefix)}…</button>
</form>
<p><a href="/dashboard/keys">Cancel: keep the key</a></p>`,
  );
}

export type CardSubscriptionPanel = CardSubscription & { manageable: boolean };

/** The card subscription as Stripe last reported it: a declined charge, a scheduled end, and the way to fix either. */
function cardSubscriptionHtml(frame: PageFrame, card: CardSubscriptionPanel, planExpiresAt: string | null, portalUrl: string | undefined): string {
  const status = card.providerStatus && card.providerStatus !== 'active' ? ` Stripe reports it as <strong id="card-status">${e(card.providerStatus.replace('_', ' '))}</strong>.` : '';
  const failed =
    card.paymentFailedAt === null
      ? ''
      : `<p class="notice notice-error" role="alert" id="payment-failed">Payment failed: the card charge of ${utcMs(card.paymentFailedAt)} was declined. Update your card; Stripe retries the charge. ${
          planExpiresAt ? `Your plan runs until ${utc(planExpiresAt)} unless a charge succeeds.` : 'Your plan has lapsed to Free until a charge succeeds.'
        }</p>`;
  const cancels = card.cancelsAt === null ? '' : `<p id="cancels-at">Cancelled: not renewed after ${utcMs(card.cancelsAt)}; the plan ends then.</p>`;
  const manage = portalUrl
    ? `<p><a id="portal-link" href="${e(portalUrl)}">Continue to Stripe to manage the card subscription</a></p>`
    : card.manageable
      ? `<form method="post" action="/dashboard/plan/card" class="stack">${csrfField(frame.csrf)}<button type="submit">Update card, change plan or cancel</button></form>`
      : '';
  return `<div class="card" id="card-subscription"><h2>Card subscription</h2>
<p>${e(card.plan)}, billed monthly by card through Stripe.${status}</p>
${failed}${cancels}${manage}</div>`;
}

export function renderPlan(
  frame: PageFrame,
  options: {
    current: string;
    expiresAt: string | null;
    plans: readonly Plan[];
    methods: readonly string[];
    checkout?: { plan: string; amountUsd: number; url: string };
    card: CardSubscriptionPanel | null;
    portalUrl?: string;
  },
): string {
  const started = options.checkout
    ? `<div class="secret" role="status"><p><strong>Upgrade to ${e(options.checkout.plan)} started.</strong> Pay $${options.checkout.amountUsd} on the payment page; the plan starts when the payment confirms.</p>
<p><a id="pay-link" href="${e(options.checkout.url)}">Continue to the payment page</a></p></div>`
    : '';
  // Only the methods this service has set up: a button that can only fail is not offered.
  const methods = options.methods;
  const methodName = (m: string) => (m === 'crypto' ? 'Crypto (USDC on Base)' : 'Card');
  const methodPhrase = (m: string) => (m === 'crypto' ? 'crypto (USDC on Base)' : 'card');
  const payWith = (plan: string) =>
    methods.length === 1
      ? `<input type="hidden" name="method" value="${e(methods[0]!)}"><p class="hint">Paid by ${methodPhrase(methods[0]!)}.</p>`
      : `<label for="method-${plan}">Pay with</label>
<select id="method-${plan}" name="method">${methods.map((m) => `<option value="${e(m)}">${methodName(m)}</option>`).join('')}</select>`;
  const cards = options.plans
    .map((plan) => {
      const upgrade =
        plan.plan === options.current
          ? '<p><strong>Your plan</strong></p>'
          : plan.plan === 'free' || methods.length === 0
            ? ''
            : `<form method="post" action="/dashboard/plan" class="stack">${csrfField(frame.csrf)}<input type="hidden" name="plan" value="${plan.plan}">
${payWith(plan.plan)}
<button type="submit">Upgrade to ${plan.plan}</button></form>`;
      return `<div class="card plan-${plan.plan}"><h2>${plan.plan}</h2><p><strong>$${plan.price_usd_per_month}</strong> a month · ${plan.invoices_per_month} invoices a month</p>${upgrade}</div>`;
    })
    .join('\n');
  const howToPay = methods.length
    ? `Paid plans can be bought here by ${methods.map(methodPhrase).join(' or ')}.`
    : 'Paid plans cannot be bought on this service yet: its operator has not set up a way to pay (crypto billing or card payments). Ask the operator to upgrade your account.';
  return page(
    frame,
    '/dashboard/plan',
    'Plan',
    `${started}
${options.card ? cardSubscriptionHtml(frame, options.card, options.expiresAt, options.portalUrl) : ''}
<p>Current plan: <strong id="current-plan">${e(options.current)}</strong>. No fee per transaction.</p>
<p id="how-to-pay"${methods.length ? '' : ' class="notice"'}>${howToPay}</p>
<div class="cards">
${cards}
</div>`,
  );
}

/** The agents connected with OAuth: each grant with its scopes and a Revoke button. */
export function renderConnectedApps(frame: PageFrame, apps: ConnectedApp[]): string {
  const rows = apps
    .map(
      (app) => `<tr>
<td data-label="Client">${app.clientName ? `<strong>${e(app.clientName)}</strong><br>` : ''}<code class="hint">${e(app.clientId)}</code></td>
<td data-label="Scopes">${app.scopes.map((s) => `<code>${e(s)}</code>`).join(' ')}</td>
<td data-label="Connected">${utcMs(app.createdAt)}</td>
<td data-label="Last used">${utcMs(app.lastUsedAt)}</td>
<td><form method="post" action="/dashboard/apps/revoke" class="inline">${csrfField(frame.csrf)}<input type="hidden" name="grant_id" value="${e(app.grantId)}"><button type="submit" aria-label="Revoke ${e(app.clientName ?? app.clientId)}">Revoke</button></form></td>
</tr>`,
    )
    .join('\n');
  const table = apps.length
    ? `<div class="scroll"><table id="apps">
<thead><tr><th scope="col">Client</th><th scope="col">Scopes</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`
    : '<p id="no-apps">No app is connected. An agent connects by adding <code>/api/v1/mcp</code> as a remote MCP server and signing in here with an API key.</p>';
  return page(frame, '/dashboard/apps', 'Connected apps', `${table}
<p class="hint">Revoking ends the app's access at once: its next call is refused, and its refresh token no longer works.</p>`);
}
