import { McpServer, type ServerOptions } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { API_VERSION, RELEASE_VERSION } from '../shared/index.ts';
import type { ServerDeps } from './deps.ts';
import { registerInvoiceResource } from './invoice-resource.ts';
import { registerResources } from './resources.ts';
import { registerInvoiceApp } from './app/invoice-app.ts';
import { registerTools } from './tools/index.ts';
import { registerPaymentTasks } from './tasks/register.ts';
import { serverIcons } from './icons.ts';
import { unitsText } from './chain-texts.ts';

const instructionsFor = (chains: ServerDeps['chains']) =>
  [
    'Takes crypto payments through a self-hosted, non-custodial payment listener: funds go straight to the merchant wallet.',
    'To get paid: list_supported_assets (once), create_invoice, show the payer the amount, address and QR code, then wait_for_payment (or subscribe to the resource invoice://{invoice_id}) until it is confirmed or expired; get_invoice_status reads it once.',
    `Amounts are in ${unitsText(chains)}. Only status "confirmed" means paid.`,
  ].join(' ');

/**
 * One JSON Schema validator for every session's server: the SDK otherwise builds an Ajv instance
 * (with its formats) per server, about a fifth of an idle HTTP session's memory. The servers never
 * compile a schema of their own with it (they elicit nothing), so sharing keeps nothing per session.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** What hosts show people beside the server's name in their directories and settings. */
const description = `Non-custodial crypto invoicing: create invoices payable in Bitcoin or USDC/USDT, show the QR code, and wait until they are paid. Release ${RELEASE_VERSION}, speaking interface ${API_VERSION}.`;

/** How long a 2026-07-28 client may keep a listing before asking again. */
const LISTING_TTL_MS = 5 * 60_000;

/**
 * Cache hints of the 2026-07-28 listings (2025-era answers never carry them). The tools, the
 * resource templates and what `server/discover` says are fixed by the deployment: the same for
 * every caller of an endpoint (Cloud registers list_invoices for every merchant, the listener for
 * none), and they change only with a new version, so any cache may keep them for a few minutes.
 * `resources/list` names the caller's own invoices (Cloud) and changes with every new invoice:
 * private and never reused. `resources/read` keeps the SDK's default (0 ms, private): an invoice's
 * status is what a reader waits for.
 */
const cacheHints: ServerOptions['cacheHints'] = {
  'tools/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'public' },
  'server/discover': { ttlMs: LISTING_TTL_MS, cacheScope: 'public' },
  'resources/list': { ttlMs: 0, cacheScope: 'private' },
};

/**
 * The MCP server, its tools bound to one caller through `deps`: the factory both serving entries
 * (stdio, HTTP of either era) build their instances with.
 */
export function createServer(deps: ServerDeps, era: 'modern' | 'legacy' = 'legacy'): McpServer {
  // The checkout hand-off's requestState is checked before any tool runs (-32602 when altered).
  const requestState = deps.paymentState && { verify: deps.paymentState.handOff.verify };
  const server = new McpServer(
    { name: 'service-mcp', title: 'Service crypto payments', version: RELEASE_VERSION, description, icons: serverIcons },
    { instructions: instructionsFor(deps.chains), jsonSchemaValidator, cacheHints, ...(requestState && { requestState }) },
  );
  registerTools(server, deps);
  // Tasks exist on 2026-07-28 only: a 2025-era session keeps the blocking wait_for_payment.
  if (era === 'modern' && deps.paymentState) registerPaymentTasks(server, deps, deps.paymentState.tasks);
  registerResources(server, deps.listener);
  registerInvoiceResource(server, deps);
  registerInvoiceApp(server);
  return server;
}
