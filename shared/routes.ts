import type * as z from 'zod';
import { CheckoutView } from './checkout.ts';
import {
  Account,
  BillingCheckoutRequest,
  BillingCheckoutResponse,
  CloudCreatedInvoice,
  CloudHealth,
  CloudStoredInvoice,
  CreatedKey,
  CreateKeyRequest,
  InvoiceList,
  PlanCatalogue,
  SignupRequest,
  SignupResponse,
  WebhookSettingRequest,
  LightningSettingRequest,
  LightningSettingResponse,
  WebhookSettingResponse,
} from './cloud.ts';
import { errorCatalogue, type ErrorCode } from './errors.ts';
import { Health } from './health.ts';
import { INVOICES_READ, INVOICES_WRITE, type Scope } from './scopes.ts';
import { CreatedInvoice, CreateInvoiceRequest, StoredInvoice } from './invoice.ts';
import { X402PaymentRequired } from './x402.ts';
import { invoiceListParameterDocs } from './invoice-list.ts';

/** Which edition serves a route: the self-hosted listener or the multi-tenant Cloud. */
export type Surface = 'listener' | 'cloud';

/**
 * Who may call: anyone; anyone, or a key when the listener has one set (`SERVICE_API_KEY`);
 * only a merchant's key (Cloud). Both keyed kinds make `unauthorized` one of the route's answers, and
 * a merchant's key `database_unavailable` too (the key is looked up in the database).
 */
export type RouteAuth = 'public' | 'listener-key' | 'merchant-key';

/**
 * What a credential must hold to call a route; every route declares it, and a test checks each
 * declaration against a running server with every scope. `none`: nothing (a public route); a scope;
 * `full-access`: a key without scopes (account, keys, webhook, billing); `per-message`: each MCP
 * message needs what its method or tool declares (edge/oauth/scopes.ts); `any`: any credential the
 * route takes (an MCP session's stream and its end).
 */
export type RouteScope = 'none' | Scope | 'full-access' | 'per-message' | 'any';

/** A JSON body is a zod schema with an id (a component); other media types carry a plain JSON Schema. */
export type RouteContent = { mediaType: 'application/json'; schema: z.ZodType } | { mediaType: string; jsonSchema: Record<string, unknown> };

export interface RouteResponse {
  description: string;
  /** Absent for an answer without a body. */
  content?: RouteContent;
  /** Other media types the same status may carry, chosen by the request (a list as CSV). */
  alternatives?: readonly RouteContent[];
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
  scope: RouteScope;
  parameters?: readonly RouteParameter[];
  request?: z.ZodType;
  /**
   * The answers a handler gives itself, by status; the envelope answers come from `errors`.
   * `default` stands for a range of statuses a library chooses (the OAuth error pages).
   */
  responses: Readonly<{ [status: number]: RouteResponse; default?: RouteResponse }>;
  /** Error codes the route answers with (in the error envelope), besides those of its `auth`. */
  errors: readonly ErrorCode[];
  /** Why a served route is left out of the public document; absent for every documented route. */
  unlisted?: string;
}

const json = (schema: z.ZodType, description: string): RouteResponse => ({ description, content: { mediaType: 'application/json', schema } });
const html = (description: string): RouteResponse => ({ description, content: { mediaType: 'text/html', jsonSchema: { type: 'string' } } });
const checkoutEventsDescription =
  'Server-Sent Events: an event `view` with the checkout view (the JSON of the view route) at once and after each status change of the invoice, until the status is final (then the stream ends). A stream lives `CHECKOUT_STREAM_MAX_S` at most (default 300): it then ends with an event `reconnect`, and the client opens a new one. Each client address may hold `CHECKOUT_STREAMS_PER_CLIENT` streams (default 20; beyond, 429 `too_many_streams`) and the server `CHECKOUT_STREAMS_MAX` in all (default 500; beyond, 503 `capacity`), both with `Retry-After`. Public and CORS-open, like the view. The checkout page listens to it and falls back to polling the view when the stream is refused or cut.';

const invoiceId: RouteParameter = { name: 'id', in: 'path', required: true, jsonSchema: { type: 'string' }, description: 'The invoice id.' };

/** What POST /invoice can answer besides its invoice; Cloud's create shares them. */
const createErrors: ErrorCode[] = ['bad_body', 'invalid_amount', 'unsupported_chain', 'chain_disabled', 'base_disabled', 'asset_disabled', 'rate_limited', 'create_failed', 'capacity', 'rate_unavailable', 'lightning_unavailable', 'database_unavailable'];
/** What an invoice's x402 URL can answer besides its 402 and 200. */
const x402Errors: ErrorCode[] = ['invalid_payment', 'payment_in_progress', 'invoice_paid', 'invoice_ended', 'x402_unavailable', 'settlement_unavailable', 'settlement_failed', 'not_found', 'rate_limited', 'lookup_failed', 'database_unavailable'];
const x402Description =
  'No key: the invoice\'s `x402_url`, public like its checkout page and rate limited per client IP (`X402_RATE_LIMIT`, default 60/min and 600/min overall). Without `PAYMENT-SIGNATURE`: 402 with `PAYMENT-REQUIRED` (x402 v2, base64 JSON) and the same object as body. With it (an EIP-3009 authorization signed for exactly the requirements): every check runs before anything is sent, one payer at a time, then the settlement (the built-in settler or `X402_FACILITATOR_URL`); 200 with `PAYMENT-RESPONSE` once the transaction is mined, and the invoice. The invoice confirms through the chain watcher like any transfer. The same payload again answers the same 200; nothing is sent twice.';
const x402Responses = {
  200: json(StoredInvoice, 'Paid: `PAYMENT-RESPONSE` (base64 JSON: success, transaction, network, payer) and the invoice, still pending until the watcher confirms the transfer.'),
  402: json(X402PaymentRequired, 'Payment required: the requirements (also in `PAYMENT-REQUIRED`).'),
};

/** The invoice lists' query parameters, all optional. */
const invoiceListParameters: RouteParameter[] = Object.entries(invoiceListParameterDocs).map(([name, doc]) => ({ name, in: 'query', required: false, ...doc }));
const invoiceListAnswer: RouteResponse = {
  ...json(InvoiceList, 'One page, most recent first, and `next_cursor`.'),
  alternatives: [{ mediaType: 'text/csv', jsonSchema: { type: 'string' } }],
};
const invoiceListRule =
  'Filters combine (all must hold); pages follow `next_cursor`, which stays valid as new invoices arrive (they come before it). `Accept: text/csv` or `format=csv` answers every matching invoice as CSV instead (RFC 4180, a header line, `Content-Disposition: attachment`), streamed as it is read, whatever their number; a merchant runs two exports at a time at most (then 429 `rate_limited`). A pending invoice past `expires_at` is listed as `expired`, as a read answers it, and stored so (`status` matches the stored status: the expiry sweeper stores `expired` within a minute of `expires_at`, a list as it reads). An unknown or repeated parameter, or a malformed value, answers 400 `bad_query` naming it.';
const listErrors: ErrorCode[] = ['bad_query', 'rate_limited', 'lookup_failed', 'database_unavailable'];

/** What reading one stored invoice can answer. */
const readErrors: ErrorCode[] = ['not_found', 'lookup_failed', 'database_unavailable'];

const openApiDocument: RouteResponse = { description: 'OpenAPI 3.1 document.', content: { mediaType: 'application/json', jsonSchema: { type: 'object' } } };
const llmsText: RouteResponse = { description: 'Markdown text.', content: { mediaType: 'text/plain', jsonSchema: { type: 'string' } } };

const prometheusText: RouteResponse = {
  description: 'Prometheus text exposition format 0.0.4 (`Content-Type: text/plain; version=0.0.4`).',
  content: { mediaType: 'text/plain', jsonSchema: { type: 'string' } },
};

const eventStream = (description: string): RouteResponse => ({ description, content: { mediaType: 'text/event-stream', jsonSchema: { type: 'string' } } });

/** Cloud's fair shares of the MCP endpoint's sessions and listen streams, in its description. */
const CLOUD_MCP_SHARES =
  " On Cloud a merchant's plan caps its open sessions and, apart, its listen streams (`CLOUD_MCP_SESSIONS_PER_PLAN`, default Free 10, Starter 50, Pro 100), and Free merchants together never take the part of the server's sessions and streams kept for paid plans (`CLOUD_FAIR_SHARE_RESERVE`, default 20 %; a Free merchant holding none may take half of it): past either, 429 `too_many_sessions` whose message names the cap, with `Retry-After`.";

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
      scope: 'per-message',
      summary: 'MCP Streamable HTTP endpoint: send a JSON-RPC message (tools, resources, subscriptions) to an agent session',
      description: `The Model Context Protocol over Streamable HTTP (the same tools and resources as the stdio server \`service-mcp\`). ${keyRule} Start with \`initialize\` (no session header); its answer carries \`Mcp-Session-Id\`, which later requests must send. A 2026-07-28 client sends no \`initialize\` and no session: each request carries its revision in \`params._meta\` and the \`MCP-Protocol-Version\`, \`Mcp-Method\` and \`Mcp-Name\` headers, and is answered statelessly (\`server/discover\`, \`subscriptions/listen\` streams bounded by \`MCP_MAX_LISTEN_STREAMS\`); a missing or disagreeing header answers 400 with JSON-RPC -32020. Sessions are bounded per owner (Cloud: the merchant; listener: the key, or each OAuth grant; \`MCP_MAX_SESSIONS_PER_OWNER\`, default 100), and their starts per owner and per client address (\`MCP_INITIALIZE_RATE_LIMIT\`, default 60 and 600 a minute): past either, 429 \`too_many_sessions\` with \`Retry-After\`; past the server's \`MCP_MAX_SESSIONS\`, 503 \`capacity\`.${surface === 'cloud' ? CLOUD_MCP_SHARES : ''} A browser \`Origin\` must be listed in \`MCP_ALLOWED_ORIGINS\`; requests without Origin are not browser requests and pass. Tool failures are tool results whose text starts with the stable error code.`,
      responses: {
        200: eventStream("The answer to a request, as server-sent events: the request's progress notifications, then its JSON-RPC response."),
        202: { description: 'A notification or a response from the client was accepted; no body.' },
      },
      errors: ['bad_body', ...refusals, 'too_many_sessions', 'capacity'],
    },
    {
      ...common,
      operationId: `${idPrefix}Get`,
      method: 'get',
      scope: 'any',
      summary: "MCP Streamable HTTP endpoint: the session's stream of server messages (resource updates)",
      description: 'An event stream (`text/event-stream`) carrying `notifications/resources/updated` for subscribed invoices. Requires `Mcp-Session-Id`.',
      responses: { 200: eventStream('Server-sent events, open until the session ends.') },
      errors: ['bad_body', ...refusals],
    },
    {
      ...common,
      operationId: `${idPrefix}Delete`,
      method: 'delete',
      scope: 'any',
      summary: 'MCP Streamable HTTP endpoint: end the session',
      description: 'Closes the session named by `Mcp-Session-Id` and its subscriptions. Idle sessions also close on their own (after 30 minutes without a request).',
      responses: { 200: { description: 'The session is closed; no body.' } },
      errors: ['bad_body', ...refusals],
    },
  ];
}

const oauthJson = (description: string): RouteResponse => ({ description, content: { mediaType: 'application/json', jsonSchema: { type: 'object' } } });
/** An error of the OAuth endpoints in the OAuth format (RFC 6749 §5.2), beside the envelope's edge errors. */
const oauthError = (description: string): RouteResponse => ({
  description,
  content: {
    mediaType: 'application/json',
    jsonSchema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
  },
});
const OAUTH_NOTE = 'Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).';

/** RFC 9728 metadata of an MCP endpoint, at the well-known address with the endpoint's path appended. */
function protectedResourceRoute(surface: Surface, mcpPath: string, operationId: string): Route {
  return {
    operationId,
    method: 'get',
    path: `/.well-known/oauth-protected-resource${mcpPath}`,
    surfaces: [surface],
    summary: `OAuth protected resource metadata of ${mcpPath} (RFC 9728)`,
    description: `Names the endpoint (\`resource\`), its authorization server, the scopes \`invoices:read\` and \`invoices:write\`, and \`bearer_methods_supported: ["header"]\`. ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    responses: { 200: oauthJson('Protected resource metadata.') },
    errors: ['not_found'],
  };
}

/** The OAuth 2.1 authorization server both editions serve for their MCP endpoint. */
const oauthRoutes: Route[] = [
  {
    operationId: 'oauthProtectedResource',
    method: 'get',
    path: '/.well-known/oauth-protected-resource',
    surfaces: ['listener', 'cloud'],
    summary: "OAuth protected resource metadata of the server's MCP endpoint (RFC 9728)",
    description: `The same document as the path-suffixed address. ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    responses: { 200: oauthJson('Protected resource metadata.') },
    errors: ['not_found'],
  },
  protectedResourceRoute('listener', '/mcp', 'oauthProtectedResourceMcp'),
  protectedResourceRoute('cloud', '/api/v1/mcp', 'cloudOauthProtectedResourceMcp'),
  {
    operationId: 'oauthAuthorizationServer',
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    surfaces: ['listener', 'cloud'],
    summary: 'OAuth authorization server metadata (RFC 8414)',
    description: `Endpoints, \`code_challenge_methods_supported: ["S256"]\`, \`client_id_metadata_document_supported: true\`. ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    responses: { 200: oauthJson('Authorization server metadata.') },
    errors: ['not_found'],
  },
  {
    operationId: 'oauthAuthorize',
    method: 'get',
    path: '/oauth/authorize',
    surfaces: ['listener', 'cloud'],
    summary: 'OAuth authorization endpoint: authorization code with PKCE S256, `resource` required',
    description: `Query: \`response_type=code\`, \`client_id\` (a registered id, or an https URL of a Client ID Metadata Document), \`redirect_uri\`, \`code_challenge\` + \`code_challenge_method=S256\`, \`scope\`, \`state\`, and \`resource\` = the MCP endpoint URL. Sends the browser to the consent page, where the merchant signs in with an API key and approves or denies; then back to \`redirect_uri\` with \`code\` or \`error\`. An unregistered \`redirect_uri\` gets an error page and no redirect. Every parameter (\`state\` too) is at most 1,000 characters, all together 4,000: a longer one goes back to the client as \`invalid_request\`, nothing stored. Throttled per client address: 60 requests a minute, then 429 with \`Retry-After\`. ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    // A redirect endpoint (RFC 6749): its only answers are the redirect and an error page whose 4xx
    // status oidc-provider picks by the error, hence `default` rather than one status.
    responses: {
      303: html('To the consent page, or back to the client (`Location`); the body is a short note with the link.'),
      400: html('Error page, no redirect: a malformed request, an unknown client, an unregistered redirect_uri.'),
      429: html('Error page (`temporarily_unavailable`), no redirect: too many authorization requests from this address; `Retry-After` says when to retry.'),
      default: html('Error page, no redirect, with another status oidc-provider picks by the error (500 `server_error` when its storage fails).'),
    },
    errors: ['not_found'],
  },
  {
    operationId: 'oauthToken',
    method: 'post',
    path: '/oauth/token',
    surfaces: ['listener', 'cloud'],
    summary: 'OAuth token endpoint: code exchange (with code_verifier) and refresh (rotating)',
    description: `Form body. \`grant_type=authorization_code\` with \`code\`, \`code_verifier\`, \`redirect_uri\`, \`client_id\`; or \`grant_type=refresh_token\`. Access tokens live 15 minutes and are accepted only by the MCP endpoint named in \`resource\`; each refresh returns a new refresh token and a reused one revokes the grant. A reused code fails and revokes what it issued. A grant lives only as long as the API key that approved it: once that key is revoked (Cloud) or SERVICE_API_KEY changed (listener), its tokens stop working and a refresh fails with \`invalid_grant\`. Throttled per client address: 600 requests a minute. ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    responses: {
      200: oauthJson('access_token, token_type, expires_in, refresh_token, scope.'),
      400: oauthError('An OAuth error: `invalid_request`, `invalid_grant` (an unknown, used or expired code or refresh token, a wrong code_verifier, a grant whose key is revoked), `invalid_target`.'),
      429: oauthError('`too_many_requests`: too many token requests from this address; `Retry-After` says when to retry.'),
    },
    errors: ['not_found'],
  },
  {
    operationId: 'oauthRegister',
    method: 'post',
    path: '/oauth/register',
    surfaces: ['listener', 'cloud'],
    summary: 'OAuth dynamic client registration (RFC 7591)',
    description: `JSON client metadata: at most 10 \`redirect_uris\`, a \`client_name\` of at most 200 characters, every other string at most 1,000 characters, a list at most 10 entries, the whole at most 8,000 characters of JSON. Fields of features this server does not offer (\`post_logout_redirect_uris\` and the other logout fields, \`request_uris\`, \`jwks\`, \`jwks_uri\`, \`sector_identifier_uri\`, \`initiate_login_uri\`, \`software_statement\`, …) are refused with \`invalid_client_metadata\` (empty ones are dropped); unknown fields are ignored. No registration access token is issued. A client that holds no grant is deleted a day after it registered. Throttled per client address: 20 a minute (429 \`too_many_requests\` with Retry-After). ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    responses: {
      201: oauthJson('The registered client, with its client_id.'),
      400: oauthError('An OAuth error: `invalid_redirect_uri`, `invalid_client_metadata`.'),
      429: { ...oauthError('`too_many_requests`: too many registrations from this address; `Retry-After` says when to retry.') },
    },
    errors: ['not_found'],
  },
  {
    operationId: 'oauthRevoke',
    method: 'post',
    path: '/oauth/revoke',
    surfaces: ['listener', 'cloud'],
    summary: 'OAuth token revocation (RFC 7009)',
    description: `Form body \`token\` (an access or refresh token) and \`client_id\`. The token stops working at once. ${OAUTH_NOTE}`,
    auth: 'public',
    scope: 'none',
    responses: {
      200: { description: 'Revoked (or already unknown); no body.' },
      400: oauthError('An OAuth error: `invalid_request` (no client_id).'),
    },
    errors: ['not_found'],
  },
];

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
    scope: INVOICES_WRITE,
    request: CreateInvoiceRequest,
    responses: { 201: json(CreatedInvoice, 'The invoice, in the Bitcoin or EVM shape.') },
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
    scope: 'none',
    parameters: [invoiceId],
    responses: { 200: json(StoredInvoice, 'The stored invoice.') },
    errors: readErrors,
  },
  {
    operationId: 'listInvoices',
    method: 'get',
    path: '/invoices',
    surfaces: ['listener'],
    summary: 'Find invoices: filtered, paged, or exported as CSV',
    description: `Requires \`X-Service-Api-Key\` when the listener has \`SERVICE_API_KEY\` set (without one, like POST /invoice, it is open: development only). The same query and answers as Cloud \`GET /api/v1/invoices\`. ${invoiceListRule}`,
    auth: 'listener-key',
    scope: INVOICES_READ,
    parameters: invoiceListParameters,
    responses: { 200: invoiceListAnswer },
    errors: listErrors,
  },
  {
    operationId: 'getX402',
    method: 'get',
    path: '/x402/{id}',
    surfaces: ['listener'],
    summary: 'Pay an invoice with x402 (HTTP 402, EIP-3009 USDC)',
    description: x402Description,
    auth: 'public',
    scope: 'none',
    parameters: [invoiceId],
    responses: x402Responses,
    errors: x402Errors,
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
    scope: 'none',
    parameters: [invoiceId],
    responses: { 200: json(CheckoutView, 'The checkout view, in the Bitcoin or EVM shape.') },
    errors: readErrors,
  },
  {
    operationId: 'getCheckoutEvents',
    method: 'get',
    path: '/checkout/{id}/events',
    surfaces: ['listener'],
    summary: "An invoice's checkout view, live (Server-Sent Events)",
    description: checkoutEventsDescription,
    auth: 'public',
    scope: 'none',
    parameters: [invoiceId],
    responses: { 200: eventStream('`event: view` messages whose data is the checkout view; `event: reconnect` when the stream reached its lifetime.') },
    errors: ['not_found', 'too_many_streams', 'capacity', 'lookup_failed', 'database_unavailable'],
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
    scope: 'none',
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
    scope: 'none',
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
    scope: 'none',
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
    scope: 'none',
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
      'Counters, gauges and histograms of invoices, chain watchers, chain sources, webhook deliveries, MCP and HTTP, plus process metrics. No label carries a merchant id, email, address or key. With `METRICS_TOKEN` set, answered to any caller sending `Authorization: Bearer <METRICS_TOKEN>`. Without it, only to a caller on the same host: the server listens on loopback only with no `PUBLIC_URL` set, the connection comes from loopback and the request carries no forwarding header of any kind (`Forwarded`, `Via`, `X-Forwarded-*`, `X-Real-IP`, …). Anyone else gets 401 `unauthorized`.',
    auth: 'public',
    scope: 'none',
    responses: { 200: prometheusText },
    errors: ['unauthorized'],
  },
  ...mcpRoutes('listener', '/mcp', 'mcp', 'listener-key', 'The key as for `POST /invoice` (`X-Service-Api-Key`, or `Authorization: Bearer <key>`) when the listener has `SERVICE_API_KEY` set, or an OAuth access token issued for this endpoint (`Authorization: Bearer`; without credentials the 401 carries `WWW-Authenticate: Bearer resource_metadata=…`, and a token lacking the scope of a tool gets 403 `insufficient_scope`); `create_invoice` counts against the same rate limit.'),
  {
    operationId: 'cloudSignup',
    method: 'post',
    path: '/api/v1/signup',
    surfaces: ['cloud'],
    summary: 'Create a Cloud account (Free plan)',
    description: 'Throttled per client IP. `api_key` and `webhook_secret` are shown once; only a hash of the key is stored.',
    auth: 'public',
    scope: 'none',
    request: SignupRequest,
    responses: { 201: json(SignupResponse, 'The account id and its API key.') },
    errors: ['bad_body', 'invalid_email', 'invalid_shop_name', 'no_receive_method', 'private_key_rejected', 'invalid_xpub', 'invalid_address', 'invalid_webhook_url', 'email_taken', 'rate_limited', 'database_unavailable'],
  },
  {
    operationId: 'cloudMe',
    method: 'get',
    path: '/api/v1/me',
    surfaces: ['cloud'],
    summary: 'The account of the API key',
    auth: 'merchant-key',
    scope: 'full-access',
    responses: { 200: json(Account, 'No secrets.') },
    errors: [],
  },
  {
    operationId: 'cloudCreateKey',
    method: 'post',
    path: '/api/v1/keys',
    surfaces: ['cloud'],
    summary: 'Issue another API key, full-access or scoped',
    description:
      'Needs a full-access key. A scoped key works on `/api/v1` and `/api/v1/mcp` within its scopes: `invoices:read` for GET /invoice/{id}, GET /invoices and the reading MCP tools and resources; `invoices:write` for POST /invoice and create_invoice. Anything else (account, webhook, billing, keys, the dashboard) needs a full-access key; a scoped key gets 403 `insufficient_scope`.',
    auth: 'merchant-key',
    scope: 'full-access',
    request: CreateKeyRequest,
    responses: { 201: json(CreatedKey, 'The new key, shown once.') },
    errors: ['bad_body', 'invalid_key_request'],
  },
  {
    operationId: 'cloudListInvoices',
    method: 'get',
    path: '/api/v1/invoices',
    surfaces: ['cloud'],
    summary: "The merchant's invoices, most recent first: filtered, paged, or exported as CSV",
    description: `Only the key's merchant's invoices. Each entry carries \`checkout_url\` when hosted checkout is enabled; a CSV export adds it as the last column. ${invoiceListRule}`,
    auth: 'merchant-key',
    scope: INVOICES_READ,
    parameters: invoiceListParameters,
    responses: { 200: invoiceListAnswer },
    errors: listErrors,
  },
  {
    operationId: 'cloudSetWebhook',
    method: 'post',
    path: '/api/v1/webhook',
    surfaces: ['cloud'],
    summary: 'Save the webhook URL; issues a fresh signing secret',
    description: 'https, default port, host resolving only to public addresses (checked now and before every delivery). The previous secret stops signing.',
    auth: 'merchant-key',
    scope: 'full-access',
    request: WebhookSettingRequest,
    responses: { 200: json(WebhookSettingResponse, 'The saved URL and the new secret (shown once).') },
    errors: ['bad_body', 'invalid_webhook_url', 'unknown_webhook_event'],
  },
  {
    operationId: 'cloudSetLightning',
    method: 'post',
    path: '/api/v1/lightning',
    surfaces: ['cloud'],
    summary: "Connect (or disconnect) your own Lightning wallet",
    description:
      'A receive-only Nostr Wallet Connect URI from your wallet. The service connects to its relays, asks get_info, and refuses a connection that may spend or cannot make and look up invoices. Bitcoin invoices then carry a BOLT11 invoice from your wallet. `nwc_url: null` disconnects. The URI is a secret: stored, never returned.',
    auth: 'merchant-key',
    scope: 'full-access',
    request: LightningSettingRequest,
    responses: { 200: json(LightningSettingResponse, 'The saved connection, shortened; null when disconnected.') },
    errors: ['bad_body', 'invalid_lightning_connection', 'lightning_unavailable'],
  },
  {
    operationId: 'cloudPlans',
    method: 'get',
    path: '/api/v1/plans',
    surfaces: ['cloud'],
    summary: 'Plan catalogue',
    auth: 'public',
    scope: 'none',
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
    scope: 'full-access',
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
    scope: 'none',
    responses: { 200: { description: '{received: true, outcome}.', content: { mediaType: 'application/json', jsonSchema: { type: 'object' } } } },
    errors: ['bad_body', 'method_unavailable', 'database_unavailable'],
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
    scope: INVOICES_WRITE,
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
    scope: INVOICES_READ,
    parameters: [invoiceId],
    responses: { 200: json(CloudStoredInvoice, 'The stored invoice, with checkout_url when hosted checkout is enabled.') },
    errors: readErrors,
  },
  {
    operationId: 'cloudX402',
    method: 'get',
    path: '/api/v1/x402/{id}',
    surfaces: ['cloud'],
    summary: 'Pay an invoice with x402 (HTTP 402, EIP-3009 USDC)',
    description: `${x402Description} On Cloud the overall budget is shared by the invoices' merchants: each has its plan's requests a minute (\`CLOUD_X402_RATE_PER_PLAN\`, default Free 60, Starter 300, Pro 600), and Free merchants together the overall budget less \`CLOUD_FAIR_SHARE_RESERVE\` (default 480 of 600), counted across instances; past any, 429 \`rate_limited\` naming the limit, with \`Retry-After\`.`,
    auth: 'public',
    scope: 'none',
    parameters: [invoiceId],
    responses: x402Responses,
    errors: x402Errors,
  },
  {
    operationId: 'cloudCheckoutView',
    method: 'get',
    path: '/api/v1/checkout/{id}',
    surfaces: ['cloud'],
    summary: 'Public display view of an invoice (CORS open)',
    auth: 'public',
    scope: 'none',
    parameters: [invoiceId],
    responses: { 200: json(CheckoutView, 'Display-only fields.') },
    errors: ['not_found', 'database_unavailable'],
  },
  {
    operationId: 'cloudCheckoutEvents',
    method: 'get',
    path: '/api/v1/checkout/{id}/events',
    surfaces: ['cloud'],
    summary: 'Public display view of an invoice, live (Server-Sent Events)',
    description: `${checkoutEventsDescription} Each stream also counts for the invoice's merchant: at most its plan's \`CLOUD_CHECKOUT_STREAMS_PER_PLAN\` (default Free 25, Starter 100, Pro 250) on one server, and Free merchants together never take the part of \`CHECKOUT_STREAMS_MAX\` kept for paid plans (\`CLOUD_FAIR_SHARE_RESERVE\`); past either, 429 \`too_many_streams\` naming the cap, with \`Retry-After\`.`,
    auth: 'public',
    scope: 'none',
    parameters: [invoiceId],
    responses: { 200: eventStream('`event: view` messages whose data is the display view; `event: reconnect` when the stream reached its lifetime.') },
    errors: ['not_found', 'too_many_streams', 'capacity', 'database_unavailable'],
  },
  {
    operationId: 'cloudHealth',
    method: 'get',
    path: '/api/v1/health',
    surfaces: ['cloud'],
    summary: 'Cloud liveness',
    auth: 'public',
    scope: 'none',
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
    scope: 'none',
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
    scope: 'none',
    responses: { 200: llmsText },
    errors: [],
  },
  ...mcpRoutes('cloud', '/api/v1/mcp', 'cloudMcp', 'merchant-key', "The merchant's API key (`X-Service-Api-Key`, or `Authorization: Bearer <key>`), or an OAuth access token issued for this endpoint (`Authorization: Bearer`; without credentials the 401 carries `WWW-Authenticate: Bearer resource_metadata=…`); every tool and resource sees only that merchant's invoices, and `list_invoices` is added. Scoped keys and tokens: `invoices:write` for create_invoice, `invoices:read` for the reading tools and resources, else 403 `insufficient_scope`."),
  ...oauthRoutes,
];

/** The routes one edition serves. */
export const routesOf = (surface: Surface): Route[] => routeTable.filter((route) => route.surfaces.includes(surface));

/** Every error code a route answers with: its own and those its `auth` implies. */
export function routeErrors(route: Route): ErrorCode[] {
  const implied: ErrorCode[] = route.auth === 'public' ? [] : route.auth === 'listener-key' ? ['unauthorized'] : ['unauthorized', 'database_unavailable'];
  // A scoped Cloud key (or, on an MCP endpoint, an OAuth token) may lack what the route needs.
  const scoped: ErrorCode[] = route.auth === 'merchant-key' || (route.auth !== 'public' && route.path.endsWith('/mcp')) ? ['insufficient_scope'] : [];
  return [...new Set([...implied, ...scoped, ...route.errors])];
}

/** What an unexpected failure inside a route answers: the 500 code the route documents, else `internal_error`. */

export const failureCode = (route: Route): ErrorCode => route.errors.find((code) => errorCatalogue[code].status === 500) ?? 'internal_error';
