import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { API_VERSION } from '../shared/index.ts';
import type { ServerDeps } from './deps.ts';
import { registerInvoiceResource } from './invoice-resource.ts';
import { registerResources } from './resources.ts';
import { registerInvoiceApp } from './app/invoice-app.ts';
import { registerTools } from './tools/index.ts';
import { serverIcons } from './icons.ts';

const instructions = [
  'Takes crypto payments through a self-hosted, non-custodial payment listener: funds go straight to the merchant wallet.',
  'To get paid: list_supported_assets (once), create_invoice, show the payer the amount, address and QR code, then wait_for_payment (or subscribe to the resource invoice://{invoice_id}) until it is confirmed or expired; get_invoice_status reads it once.',
  'Bitcoin amounts are in sats (integers), stablecoin amounts in USD. Only status "confirmed" means paid.',
].join(' ');

/**
 * One JSON Schema validator for every session's server: the SDK otherwise builds an Ajv instance
 * (with its formats) per server, about a fifth of an idle HTTP session's memory. The servers never
 * compile a schema of their own with it (they elicit nothing), so sharing keeps nothing per session.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** What hosts show people beside the server's name in their directories and settings. */
const description = 'Non-custodial crypto invoicing: create invoices payable in Bitcoin or USDC/USDT, show the QR code, and wait until they are paid.';

export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer({ name: 'service-mcp', title: 'Service crypto payments', version: API_VERSION, description, icons: serverIcons }, { instructions, jsonSchemaValidator });
  registerTools(server, deps);
  registerResources(server, deps.listener);
  registerInvoiceResource(server, deps);
  registerInvoiceApp(server);
  return server;
}
