import type * as z from 'zod';
import { CheckoutView } from './checkout.ts';
import {
  Account,
  BillingCheckoutRequest,
  BillingCheckoutResponse,
  CloudCreatedInvoice,
  CloudHealth,
  InvoiceList,
  PlanCatalogue,
  SignupRequest,
  SignupResponse,
  WebhookSettingRequest,
  WebhookSettingResponse,
} from './cloud.ts';
import { errorCatalogue, type ErrorCode } from './errors.ts';
import { Health } from './health.ts';
import { CreatedInvoice, CreateInvoiceRequest, StoredInvoice } from './invoice.ts';

/** Which edition serves a route: the self-hosted listener or the multi-tenant Cloud. */
export type Surface = 'listener' | 'cloud';

/**
 * Who may call: anyone; anyone, or a key when the listener has one set (`SERVICE_API_KEY`);
 * only a merchant's key (Cloud). Both keyed kinds make `unauthorized` one of the route's answers.
 */
export type RouteAuth = 'public' | 'listener-key' | 'merchant-key';

/** A JSON body is a zod schema with an id (a component); other media types carry a plain JSON Schema. */
export type RouteContent = { mediaType: 'application/json'; schema: z.ZodType } | { mediaType: string; jsonSchema: Record<string, unknown> };

export interface RouteResponse {
  description: string;
  /** Absent for an answer without a body. */
  content?: RouteContent;
}

export interface RouteParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  jsonSchema: Record<string, unknown>;
}

export interface Route {
  operationId: string;
  method: 'get' | 'post' | 'delete';
  /** The full path as an OpenAPI template (`/invoice/{id}`); each edition turns it into its router's syntax. */
  path: string;
  surfaces: readonly Surface[];
  summary: string;
  description?: string;
  auth: RouteAuth;
  parameters?: readonly RouteParameter[];
  request?: z.ZodType;
  /** The answers a handler gives itself, by status; the envelope answers come from `errors`. */
  responses: Readonly<Record<number, RouteResponse>>;
  /** Error codes the route answers with (in the error envelope), besides those of its `auth`. */
  errors: readonly ErrorCode[];
  /** Why a served route is left out of the public document; absent for every documented route. */
  unlisted?: string;
}

const json = (schema: z.ZodType, description: string): RouteResponse => ({ description, content: { mediaType: 'application/json', schema } });
const html = (description: string): RouteResponse => ({ description, content: { mediaType: 'text/html', jsonSchema: { type: 'string' } } });

const invoiceId: RouteParameter = { name: 'id', in: 'path', required: true, jsonSchema: { type: 'string' }, description: 'The invoice id.' };

/** What POST /invoice can answer besides its invoice; Cloud's create shares them. */
const createErrors: ErrorCode[] = ['bad_body', 'invalid_amount', 'unsupported_chain', 'chain_disabled', 'base_disabled', 'asset_disabled', 'rate_limited', 'create_failed', 'capacity'];

const openApiDocument: RouteResponse = { description: 'OpenAPI 3.1 document.', content: { mediaType: 'application/json', jsonSchema: { type: 'object' } } };
const llmsText: RouteResponse = { description: 'Markdown text.', content: { mediaType: 'text/plain', jsonSchema: { type: 'string' } } };

const prometheusText: RouteResponse = {
  description: 'Prometheus text exposition format 0.0.4 (`Content-Type: text/plain; version=0.0.4`).',
  content: { mediaType: 'text/plain', jsonSchema: { type: 'string' } },
};

const eventStream = (description: string): RouteResponse => ({ description, content: { mediaType: 'text/event-stream', jsonSchema: { type: 'string' } } });

/**
 * The MCP Streamable HTTP endpoint's three methods on one path. Sessioned: `initialize` answers with
 * `Mcp-Session-Id`, which every later request carries.
 */
function mcpRoutes(surface: Surface, path: string, idPrefix: string, auth: RouteAuth, keyRule: string): Route[] {
  const common = { path, surfaces: [surface], auth } as const;
  const refusals: ErrorCode[] = ['origin_not_allowed', 'not_found'];
  return [
    {
      ...common,
      operationId: `${idPrefix}Post`,
      method: 'post',
      summary: 'MCP Streamable HTTP endpoint: send a JSON-RPC message (tools, resources, subscriptions) to an agent session',
      description: `The Model Context Protocol over Streamable HTTP (the same tools and resources as the stdio server \`service-mcp\`). ${keyRule} Start with \`initialize\` (no session header); its answer carries \`Mcp-Session-Id\`, which later requests must send. A browser \`Origin\` must be listed in \`MCP_ALLOWED_ORIGINS\`; requests without Origin are not browser requests and pass. Tool failures are tool results whose text starts with the stable error code.`,
      responses: {
        200: eventStream("The answer to a request, as server-sent events: the request's progress notifications, then its JSON-RPC response."),
        202: { description: 'A notification or a response from the client was accepted; no body.' },
      },
      errors: ['bad_body', ...refusals, 'capacity'],
    },
    {
      ...common,
      operationId: `${idPrefix}Get`,
      method: 'get',
      summary: "MCP Streamable HTTP endpoint: the session's stream of server messages (resource updates)",
      description: 'An event stream (`text/event-stream`) carrying `notifications/resources/updated` for subscribed invoices. Requires `Mcp-Session-Id`.',
      responses: { 200: eventStream('Server-sent events, open until the session ends.') },
      errors: ['bad_body', ...refusals],
    },
    {
      ...common,
      operationId: `${idPrefix}Delete`,
      method: 'delete',
      summary: 'MCP Streamable HTTP endpoint: end the session',
      description: 'Closes the session named by `Mcp-Session-Id` and its subscriptions. Idle sessions also close on their own (after 30 minutes without a request).',
      responses: { 200: { description: 'The session is closed; no body.' } },
      errors: ['bad_body', ...refusals],
    },
  ];
}

/**
 * Every API route of both editions, in the order of the OpenAPI document. The document's paths are
 * built from it, and each edition mounts one handler per route of its surface (by operation id),
 * refusing to start when a route has no handler or a handler no route.
 */
export const routeTable: readonly Route[] = [
  {
    operationId: 'createInvoice',
    method: 'post',
    path: '/invoice',
    surfaces: ['listener'],
    summary: 'Create a pending invoice',
    description:
      'Requires `X-Service-Api-Key` when the listener has `SERVICE_API_KEY` set. Rate limited per client IP and overall (default 30/min and 300/min).',
    auth: 'listener-key',
    request: CreateInvoiceRequest,
    responses: { 201: json(CreatedInvoice, 'The invoice, in the Bitcoin or Base shape.') },
    errors: createErrors,
  },
  {
    operationId: 'getInvoice',
    method: 'get',
    path: '/invoice/{id}',
    surfaces: ['listener'],
    summary: 'Read a stored invoice',
    description:
      'No key required. A pending invoice past `expires_at` reads as `expired`. Use it to refresh a checkout page or reconcile after a missed webhook; poll sparingly.',
    auth: 'public',
    parameters: [invoiceId],
    responses: { 200: json(StoredInvoice, 'The stored invoice.') },
    errors: ['not_found', 'lookup_failed'],
  },
  {
    operationId: 'getCheckoutView',
    method: 'get',
    path: '/checkout/{id}',
    surfaces: ['listener'],
    summary: "An invoice's checkout view (what its payment page shows)",
    description:
      'No key; public and CORS-open, like Cloud `GET /api/v1/checkout/{id}`. Display-only fields: never an xpub, secret, key or email. A pending invoice past `expires_at` reads as `expired`. The checkout page polls it every 5 s until the status is final.',
    auth: 'public',
    parameters: [invoiceId],
    responses: { 200: json(CheckoutView, 'The checkout view, in the Bitcoin or Base shape.') },
    errors: ['not_found', 'lookup_failed'],
  },
  {
    operationId: 'getCheckoutPage',
    method: 'get',
    path: '/pay/{id}',
    // Cloud serves the same page behind `checkout_url`, over its own checkout view.
    surfaces: ['listener', 'cloud'],
    summary: 'Hosted checkout page of an invoice (HTML, for the payer)',
    description:
      "Shop name, exact amount, address with copy buttons, the QR code of `qr_uri` (SVG made by the service), a countdown to expiry and the live status. Give the payer this link. Served with a strict Content-Security-Policy (only this origin's own script, stylesheet and JSON).",
    auth: 'public',
    parameters: [invoiceId],
    responses: {
      200: html('The page.'),
      404: html('No such invoice: an HTML page saying so.'),
      500: html('The invoice could not be read: an HTML page asking to reload.'),
    },
    errors: [],
  },
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/health',
    surfaces: ['listener'],
    summary: 'Liveness and chain-watcher state',
    auth: 'public',
    responses: { 200: json(Health, 'Health object.') },
    errors: ['internal_error'],
  },
  {
    operationId: 'getOpenApi',
    method: 'get',
    path: '/openapi.json',
    surfaces: ['listener'],
    summary: 'This document',
    auth: 'public',
    responses: { 200: openApiDocument },
    errors: [],
  },
  {
    operationId: 'getLlmsTxt',
    method: 'get',
    path: '/llms.txt',
    surfaces: ['listener'],
    summary: 'Plain-text summary of the API for language models (llmstxt.org format)',
    auth: 'public',
    responses: { 200: llmsText },
    errors: [],
  },
  {
    operationId: 'getMetrics',
    method: 'get',
    path: '/metrics',
    surfaces: ['listener', 'cloud'],
    summary: 'Prometheus metrics (text exposition format)',
    description:
      'Counters, gauges and histograms of invoices, chain watchers, chain sources, webhook deliveries, MCP and HTTP, plus process metrics. No label carries a merchant id, email, address or key. Answered to loopback callers only, or, with `METRICS_TOKEN` set, to any caller sending `Authorization: Bearer <METRICS_TOKEN>`; anyone else gets 401 `unauthorized`.',
    auth: 'public',
    responses: { 200: prometheusText },
    errors: ['unauthorized'],
  },
  ...mcpRoutes('listener', '/mcp', 'mcp', 'listener-key', 'The key as for `POST /invoice` (`X-Service-Api-Key`, or `Authorization: Bearer <key>`) when the listener has `SERVICE_API_KEY` set; `create_invoice` counts against the same rate limit.'),
  {
    operationId: 'cloudSignup',
    method: 'post',
    path: '/api/v1/signup',
    surfaces: ['cloud'],
    summary: 'Create a Cloud account (Free plan)',
    description: 'Throttled per client IP. `api_key` and `webhook_secret` are shown once; only a hash of the key is stored.',
    auth: 'public',
    request: SignupRequest,
    responses: { 201: json(SignupResponse, 'The account id and its API key.') },
    errors: ['bad_body', 'invalid_email', 'invalid_shop_name', 'no_receive_method', 'private_key_rejected', 'invalid_xpub', 'invalid_address', 'invalid_webhook_url', 'email_taken', 'rate_limited'],
  },
  {
    operationId: 'cloudMe',
    method: 'get',
    path: '/api/v1/me',
    surfaces: ['cloud'],
    summary: 'The account of the API key',
    auth: 'merchant-key',
    responses: { 200: json(Account, 'No secrets.') },
    errors: [],
  },
  {
    operationId: 'cloudListInvoices',
    method: 'get',
    path: '/api/v1/invoices',
    surfaces: ['cloud'],
    summary: "The merchant's invoices, most recent first",
    auth: 'merchant-key',
    parameters: [{ name: 'limit', in: 'query', required: false, jsonSchema: { type: 'integer', default: 25 }, description: 'Clamped to 1-100.' }],
    responses: { 200: json(InvoiceList, 'Most recent first.') },
    errors: [],
  },
  {
    operationId: 'cloudSetWebhook',
    method: 'post',
    path: '/api/v1/webhook',
    surfaces: ['cloud'],
    summary: 'Save the webhook URL; issues a fresh signing secret',
    description: 'https, default port, host resolving only to public addresses (checked now and before every delivery). The previous secret stops signing.',
    auth: 'merchant-key',
    request: WebhookSettingRequest,
    responses: { 200: json(WebhookSettingResponse, 'The saved URL and the new secret (shown once).') },
    errors: ['bad_body', 'invalid_webhook_url'],
  },
  {
    operationId: 'cloudPlans',
    method: 'get',
    path: '/api/v1/plans',
    surfaces: ['cloud'],
    summary: 'Plan catalogue',
    auth: 'public',
    responses: { 200: json(PlanCatalogue, 'Plans, payment methods, transaction fee (0).') },
    errors: [],
  },
  {
    operationId: 'cloudBillingCheckout',
    method: 'post',
    path: '/api/v1/billing/checkout',
    surfaces: ['cloud'],
    summary: 'Buy or renew a plan',
    description:
      '`crypto`: a Base stablecoin invoice whose hosted page is `checkout_url`; once it confirms the plan runs 30 days (a renewal of the same plan adds to the remaining time). `card`: a card processor page.',
    auth: 'merchant-key',
    request: BillingCheckoutRequest,
    responses: { 200: json(BillingCheckoutResponse, 'Where to pay.') },
    errors: ['bad_body', 'unknown_plan', 'method_unavailable', 'card_provider_error'],
  },
  {
    operationId: 'cloudStripeWebhook',
    method: 'post',
    path: '/api/v1/billing/stripe-webhook',
    surfaces: ['cloud'],
    summary: "Stripe's event delivery (card subscriptions), verified by its Stripe-Signature over the raw body",
    auth: 'public',
    responses: { 200: { description: '{received: true, outcome}.', content: { mediaType: 'application/json', jsonSchema: { type: 'object' } } } },
    errors: ['bad_body', 'method_unavailable'],
    unlisted: "Only Stripe calls it, at the address set in Stripe's dashboard: it is not part of the merchant API.",
  },
  {
    operationId: 'cloudCreateInvoice',
    method: 'post',
    path: '/api/v1/invoice',
    surfaces: ['cloud'],
    summary: "Create a pending invoice for the key's merchant",
    description: "Same body as the listener POST /invoice. Rate limited per API key (60/min sliding window); 402 at the plan's monthly cap.",
    auth: 'merchant-key',
    request: CreateInvoiceRequest,
    responses: { 201: json(CloudCreatedInvoice, 'The invoice plus checkout_url when hosted checkout is enabled.') },
    errors: [...createErrors, 'plan_limit_reached'],
  },
  {
    operationId: 'cloudGetInvoice',
    method: 'get',
    path: '/api/v1/invoice/{id}',
    surfaces: ['cloud'],
    summary: "Read one of the merchant's invoices",
    description: "Another merchant's invoice answers 404 `not_found`, exactly like a missing one.",
    auth: 'merchant-key',
    parameters: [invoiceId],
    responses: { 200: json(StoredInvoice, 'The stored invoice.') },
    errors: ['not_found', 'lookup_failed'],
  },
  {
    operationId: 'cloudCheckoutView',
    method: 'get',
    path: '/api/v1/checkout/{id}',
    surfaces: ['cloud'],
    summary: 'Public display view of an invoice (CORS open)',
    auth: 'public',
    parameters: [invoiceId],
    responses: { 200: json(CheckoutView, 'Display-only fields.') },
    errors: ['not_found'],
  },
  {
    operationId: 'cloudHealth',
    method: 'get',
    path: '/api/v1/health',
    surfaces: ['cloud'],
    summary: 'Cloud liveness',
    auth: 'public',
    responses: { 200: json(CloudHealth, '{ok, service, ts}.') },
    errors: [],
  },
  {
    operationId: 'cloudOpenApi',
    method: 'get',
    path: '/api/v1/openapi.json',
    surfaces: ['cloud'],
    summary: 'This document',
    auth: 'public',
    responses: { 200: openApiDocument },
    errors: [],
  },
  {
    operationId: 'cloudLlmsTxt',
    method: 'get',
    path: '/api/v1/llms.txt',
    surfaces: ['cloud'],
    summary: 'Plain-text summary of the API for language models (llmstxt.org format)',
    auth: 'public',
    responses: { 200: llmsText },
    errors: [],
  },
  ...mcpRoutes('cloud', '/api/v1/mcp', 'cloudMcp', 'merchant-key', "The merchant's API key (`X-Service-Api-Key`, or `Authorization: Bearer <key>`); every tool and resource sees only that merchant's invoices, and `list_invoices` is added."),
];

/** The routes one edition serves. */
export const routesOf = (surface: Surface): Route[] => routeTable.filter((route) => route.surfaces.includes(surface));

/** What an unexpected failure inside a route answers: the 500 code the route documents, else `internal_error`. */
export const failureCode = (route: Route): ErrorCode => route.errors.find((code) => errorCatalogue[code].status === 500) ?? 'internal_error';
