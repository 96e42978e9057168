import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { ShownInvoice } from '../../core/invoices/chain-display.ts';
import { chainNamed } from '../../core/invoices/chain-module.ts';
import type { ServerDeps } from '../deps.ts';
import { getUiCapability, registerAppResource, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';

/** The invoice view of MCP Apps hosts: create_invoice and get_invoice_status name it. */
export const INVOICE_APP_URI = 'ui://service/invoice.html';
/** Where a tool result carries what the view shows beyond the invoice (only for hosts that show apps). */
export const CHECKOUT_META_KEY = 'service/checkout';

/** The view loads nothing from anywhere: no fetch, script, font or image outside its own HTML. */
const NOTHING_EXTERNAL = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
const uiMeta = { ui: { csp: NOTHING_EXTERNAL, prefersBorder: true } };

const here = new URL('./', import.meta.url);
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The extension's browser build (one ES module with its dependencies) made into a script that
 * hands its `App` class to ours: its closing `export{a as B,…}` becomes an object of those names.
 */
function appClientScript(): string {
  const bundle = readFileSync(createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
  const at = bundle.lastIndexOf('export{');
  const end = bundle.indexOf('}', at);
  if (at < 0 || end < 0) throw new Error('@modelcontextprotocol/ext-apps/app-with-deps: no export list found');
  const names = bundle
    .slice(at + 'export{'.length, end)
    .split(',')
    .map((entry) => entry.trim().split(/\s+as\s+/))
    .map(([local, exported]) => `${JSON.stringify(exported ?? local)}:${local}`);
  return `${bundle.slice(0, at)}\nconst serviceExtApps={${names.join(',')}};\n${readFileSync(new URL('invoice-app.client.js', here), 'utf8')}`;
}

let cached: string | undefined;

/**
 * The view's one HTML document: markup, style and script inline, allowed by their hashes in its
 * Content-Security-Policy, which allows nothing else (the QR code is a data: image from the result).
 */
export function invoiceAppHtml(): string {
  if (cached) return cached;
  const style = readFileSync(new URL('invoice-app.css', here), 'utf8');
  const script = appClientScript();
  const csp = [`default-src 'none'`, `script-src ${sha256(script)}`, `style-src ${sha256(style)}`, `img-src data:`, `base-uri 'none'`, `form-action 'none'`].join('; ');
  cached = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>Invoice</title>
<style>${style}</style>
</head>
<body>
<main class="invoice" data-state="loading" aria-live="polite">
  <p class="shop" id="shop"></p>
  <h1 id="amount">Loading the invoice…</h1>
  <p class="status" id="status" role="status"></p>
  <div class="pay" id="pay" hidden>
    <img class="qr" id="qr" alt="QR code of the payment request" width="220" height="220" hidden>
    <p class="label">Send exactly</p>
    <p class="value"><code id="exact"></code> <button type="button" data-copy="exact">Copy</button></p>
    <p class="label">To the address</p>
    <p class="value"><code id="address"></code> <button type="button" data-copy="address">Copy</button></p>
    <p class="expiry" id="expiry"></p>
  </div>
  <p class="note" id="note"></p>
</main>
<script type="module">${script}</script>
</body>
</html>`;
  return cached;
}

/** The view as a resource, with the extension's MIME type and a CSP that allows nothing external. */
export function registerInvoiceApp(server: McpServer): void {
  registerAppResource(
    server,
    'Invoice checkout',
    INVOICE_APP_URI,
    { description: "An invoice's checkout (shop, amount, address, QR code, expiry) that turns to Paid by itself.", _meta: uiMeta },
    async () => ({ contents: [{ uri: INVOICE_APP_URI, mimeType: RESOURCE_MIME_TYPE, text: invoiceAppHtml(), _meta: uiMeta }] }),
  );
}

/**
 * Whether the calling client shows MCP Apps: only then do results carry the view's extras. A
 * 2026-07-28 request declares its client's capabilities itself; a 2025-era one did at initialize.
 */
function showsApps(server: McpServer, ctx: ServerContext): boolean {
  const declared = (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return getUiCapability(declared ?? server.server.getClientCapabilities())?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/** Statuses in which the view still shows where to pay. */
const open = new Set(['pending', 'partial']);

/**
 * What the invoice view shows beyond a tool's result, under `_meta` (other hosts get nothing, and
 * the text, image and structured content are the same for every host): the invoice's amount as its
 * chain states it (the view's script knows no chain), its checkout view (shop, amounts, QR URI)
 * and, while it can be paid, its QR code as a PNG.
 */
export async function invoiceAppExtras(server: McpServer, ctx: ServerContext, deps: ServerDeps, invoice: ShownInvoice): Promise<{ _meta?: Record<string, unknown> }> {
  if (!showsApps(server, ctx)) return {};
  const amount = chainNamed(deps.chains, invoice.chain).display.amountOf(invoice);
  const view = await deps.listener.checkoutView(invoice.invoice_id);
  // The view then shows what the structured content has.
  if (!view.ok) return { _meta: { [CHECKOUT_META_KEY]: { amount } } };
  const extras: Record<string, unknown> = { amount, view: view.value };
  if (open.has(view.value.status)) {
    try {
      extras.qr_png = deps.renderQr(view.value.qr_uri).toString('base64');
    } catch (error) {
      deps.logger.warn('QR code rendering failed', { invoice_id: invoice.invoice_id, error });
    }
  }
  return { _meta: { [CHECKOUT_META_KEY]: extras } };
}
