import type { ConnectedApp } from '../../core/oauth/oauth-store.ts';
import { escapeHtml as e } from '../checkout/page.ts';
import { accountPage } from '../http/dashboard-style.ts';

export interface Stylesheet {
  url: string;
  integrity: string;
}

const scopeText: Record<string, string> = {
  'invoices:read': 'Read your invoices and their payment status (get_invoice_status, list_invoices, wait_for_payment, invoice resources)',
  'invoices:write': 'Create invoices (create_invoice)',
};

function document(title: string, css: Stylesheet, body: string): string {
  return accountPage({ title: `${title} · Service`, css, body: `<main class="narrow">\n<h1>${e(title)}</h1>\n${body}\n</main>` });
}

export interface ConsentView {
  css: Stylesheet;
  action: string;
  csrf: string;
  clientName: string;
  /** The host whose Client ID Metadata Document names the client, when the redirect goes to that same host; null: the name is the client's own claim. */
  nameVouchedBy: string | null;
  clientId: string;
  redirect: RedirectTarget;
  scopes: string[];
  /** What the key field asks for: `your API key` (Cloud) or `SERVICE_API_KEY` (self-hosted). */
  keyLabel: string;
  error?: string;
}

/** Where the authorization code goes: the redirect URI's scheme and host, and what kind of place that is. */
export interface RedirectTarget {
  /** `https://claude.ai`, `http://127.0.0.1:53682`, `com.example.app://callback`. */
  origin: string;
  kind: 'web' | 'loopback' | 'custom-scheme';
}

/** The redirect URI as the consent page shows it: the full scheme and host, never the host alone. */
export function redirectTarget(redirectUri: string): RedirectTarget {
  const url = new URL(redirectUri);
  const origin = `${url.protocol}//${url.host}`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { origin, kind: 'custom-scheme' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { origin, kind: host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host) ? 'loopback' : 'web' };
}

const redirectWarning: Record<RedirectTarget['kind'], string | null> = {
  web: null,
  loopback: 'The code goes to a program on this computer (a loopback address), not to a website: approve only if you just started this connection from an app you trust here.',
  'custom-scheme': 'The code goes to an app on this device through its own link scheme, not to a website: any installed app can claim a scheme, and the host after it proves nothing. Approve only if you just started this connection from that app.',
};

/** The consent page: who asks, where the answer goes, what it may do; the merchant signs in with a key. */
export function renderConsent(view: ConsentView): string {
  const scopes = view.scopes.map((s) => `<li><code>${e(s)}</code>: ${e(Object.hasOwn(scopeText, s) ? scopeText[s]! : s)}</li>`).join('\n');
  const warning = redirectWarning[view.redirect.kind];
  const nameSource = view.nameVouchedBy
    ? `<span class="hint" id="client-name-source">(named by its metadata document at ${e(view.nameVouchedBy)})</span>`
    : '<span class="hint" id="client-name-source">(the name the app gives itself, not verified)</span>';
  return document(
    'Connect an app',
    view.css,
    `${view.error ? `<p class="notice notice-error" role="alert">${e(view.error)}</p>` : ''}
<p><strong id="client-name">${e(view.clientName)}</strong> ${nameSource} wants to use your payment service.</p>
<dl>
<dt>Client</dt><dd><code id="client-id">${e(view.clientId)}</code></dd>
<dt>Sends you back to</dt><dd><code id="redirect-origin">${e(view.redirect.origin)}</code></dd>
</dl>
${warning ? `<p class="notice notice-warn" role="note" id="redirect-warning">${e(warning)}</p>` : ''}
<h2>It asks to</h2>
<ul id="scopes">
${scopes}
</ul>
<form method="post" action="${e(view.action)}" class="stack">
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<label for="api_key">Sign in with ${e(view.keyLabel)}</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" spellcheck="false" placeholder="sk_…">
<p class="hint">The key is checked once and not given to the app: it gets a token limited to the scopes above, which you can revoke.</p>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="danger">Deny</button>
</form>`,
  );
}

const utcMs = (ms: number | null) => (ms === null ? '—' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`);

/**
 * The self-hosted Connected apps page: signed in with the key (form `api_key`), then the grants
 * with a Revoke button each; `pass` lets the page's forms act for a few minutes without the key.
 */
export function renderAppsPage(css: Stylesheet, view: { keyLabel: string; pass?: string; apps?: ConnectedApp[]; notice?: { kind: 'ok' | 'error'; text: string } }): string {
  const notice = view.notice ? `<p class="notice notice-${view.notice.kind}" role="${view.notice.kind === 'error' ? 'alert' : 'status'}">${e(view.notice.text)}</p>` : '';
  if (!view.apps || !view.pass) {
    return document('Connected apps', css, `${notice}
<form method="post" action="/oauth/apps" class="stack">
<label for="api_key">Sign in with ${e(view.keyLabel)}</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" spellcheck="false">
<button type="submit">Show connected apps</button>
</form>`);
  }
  const rows = view.apps
    .map(
      (app) => `<tr>
<td>${app.clientName ? `<strong>${e(app.clientName)}</strong><br>` : ''}<code class="hint">${e(app.clientId)}</code></td>
<td>${app.scopes.map((s) => `<code>${e(s)}</code>`).join(' ')}</td>
<td>${utcMs(app.createdAt)}</td>
<td>${utcMs(app.lastUsedAt)}</td>
<td><form method="post" action="/oauth/apps/revoke" class="inline"><input type="hidden" name="pass" value="${e(view.pass!)}"><input type="hidden" name="grant_id" value="${e(app.grantId)}"><button type="submit">Revoke</button></form></td>
</tr>`,
    )
    .join('\n');
  return document('Connected apps', css, `${notice}
${view.apps.length ? `<div class="scroll"><table id="apps"><thead><tr><th>Client</th><th>Scopes</th><th>Connected</th><th>Last used</th><th></th></tr></thead><tbody>
${rows}
</tbody></table></div>` : '<p id="no-apps">No app is connected.</p>'}
<p class="hint">Revoking ends the app's access at once. This page's buttons work for ten minutes; then sign in again.</p>`);
}

/** An OAuth failure shown in the browser (the client cannot be sent back: e.g. its redirect_uri is unknown). */
export function renderOAuthErrorPage(css: Stylesheet, error: string, description: string | undefined): string {
  return document('Authorization failed', css, `<p class="notice notice-error" role="alert"><code>${e(error)}</code>${description ? `: ${e(description)}` : ''}</p>
<p class="hint">Nothing was authorized. Start again from the app that sent you here.</p>`);
}
