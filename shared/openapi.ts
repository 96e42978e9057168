import * as z from 'zod';
import { BaseCheckoutView, BtcCheckoutView, CheckoutView } from './checkout.ts';
import { ErrorDetail, ErrorEnvelope, errorCatalogue, type ErrorCode } from './errors.ts';
import { BaseHealth, ChainSourceBudget, Health, WatcherProblem, WatcherProgress } from './health.ts';
import {
  BaseFixedInvoiceCreated,
  BaseInvoice,
  BaseXpubInvoiceCreated,
  BtcInvoice,
  BtcInvoiceCreated,
  CreateInvoiceRequest,
  CreatedInvoice,
  InvoiceStatus,
  StoredInvoice,
} from './invoice.ts';
import { API_VERSION } from './version.ts';
import {
  Account,
  BillingCheckoutRequest,
  BillingCheckoutResponse,
  CloudCreatedInvoice,
  CloudHealth,
  InvoiceList,
  InvoiceListEntry,
  PlanCatalogue,
  SignupRequest,
  SignupResponse,
  WebhookSettingRequest,
  WebhookSettingResponse,
} from './cloud.ts';
import { InvoiceConfirmedEvent, PaymentOrphanEvent, webhookHeaders, webhookVerificationCodes } from './webhooks.ts';

type JsonObject = Record<string, unknown>;

/** Every schema with an id reachable from these must be listed too: each lands in components/schemas. */
const componentSchemas = [
  ErrorDetail,
  ErrorEnvelope,
  InvoiceStatus,
  CreateInvoiceRequest,
  BtcInvoice,
  BtcInvoiceCreated,
  BaseInvoice,
  BaseXpubInvoiceCreated,
  BaseFixedInvoiceCreated,
  CreatedInvoice,
  StoredInvoice,
  BaseHealth,
  ChainSourceBudget,
  WatcherProgress,
  WatcherProblem,
  Health,
  BtcCheckoutView,
  BaseCheckoutView,
  CheckoutView,
  InvoiceConfirmedEvent,
  PaymentOrphanEvent,
  SignupRequest,
  SignupResponse,
  Account,
  PlanCatalogue,
  InvoiceListEntry,
  InvoiceList,
  WebhookSettingRequest,
  WebhookSettingResponse,
  BillingCheckoutRequest,
  BillingCheckoutResponse,
  CloudCreatedInvoice,
  CloudHealth,
];

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function schemaComponents(): JsonObject {
  const registry = z.registry<{ id: string }>();
  for (const schema of componentSchemas) {
    const id = z.globalRegistry.get(schema)?.id;
    if (!id) throw new Error('every component schema needs a .meta({ id })');
    registry.add(schema, { id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
  });
  // zod puts an id'd schema missing from the registry under `__shared`, a ref that no OpenAPI tool resolves.
  const unlisted = Object.keys((schemas.__shared as JsonObject | undefined)?.$defs ?? {});
  if (unlisted.length) throw new Error(`add to componentSchemas: ${unlisted.join(', ')}`);
  // `uri` sets each `$id` to its ref, a fragment that JSON Schema 2020-12 forbids in `$id`: components need none.
  for (const schema of Object.values(schemas)) {
    delete (schema as JsonObject).$schema;
    delete (schema as JsonObject).$id;
  }
  return schemas;
}

function errorResponse(codes: ErrorCode[]): JsonObject {
  const lines = codes.map((code) => `\`${code}\`: ${errorCatalogue[code].description}`);
  return {
    description: lines.join('\n\n'),
    content: {
      'application/json': {
        schema: ref('ErrorEnvelope'),
        examples: Object.fromEntries(
          codes.map((code) => [code, { value: { error: { code, message: errorCatalogue[code].description } } }]),
        ),
      },
    },
  };
}

/** Any request can get these at the edge, before its route runs: a malformed URL or body, oversized headers. */
const edgeCodes: ErrorCode[] = ['bad_body', 'headers_too_large'];

/** Groups codes (plus the edge codes) by their HTTP status into OpenAPI responses. */
function errorResponses(codes: ErrorCode[]): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...edgeCodes, ...codes])) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: JsonObject = {};
  for (const [status, statusCodes] of byStatus) {
    const response = errorResponse(statusCodes);
    if (status === 429) {
      response.headers = {
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      };
    }
    responses[String(status)] = response;
  }
  return responses;
}

const invoiceIdParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The invoice id.' };

const jsonBody = (schemaId: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(schemaId) } },
});

function webhookOperation(eventName: string, schemaId: string, summary: string): JsonObject {
  const rejected = errorResponse([...webhookVerificationCodes]);
  const header = (name: string, description: string, schema: JsonObject) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
  });
  return {
    post: {
      summary,
      operationId: `webhook_${eventName.replace('.', '_')}`,
      parameters: [
        header(webhookHeaders.signature, 'hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)).', {
          type: 'string',
          pattern: '^[0-9a-f]{64}$',
        }),
        header(webhookHeaders.timestamp, 'Unix epoch milliseconds of this attempt; not signed. Reject if more than 5 minutes from your clock.', {
          type: 'string',
          pattern: '^[0-9]+$',
        }),
        header(webhookHeaders.eventId, 'Stable event id, the same on every retry: de-duplicate by it.', { type: 'string' }),
        header(webhookHeaders.attempt, 'Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send.', {
          type: 'string',
          pattern: '^[0-9]+$',
        }),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref(schemaId) } } },
      responses: {
        '2XX': { description: 'Any 2xx within 10 seconds acknowledges the event.' },
        '401': {
          ...rejected,
          description: `What \`verifyWebhook\` and the \`webhook-receiver\` tool answer to a delivery they reject (any non-2xx means a retry):\n\n${rejected.description}`,
        },
        default: {
          description: 'Anything else (or no answer within 10 s) schedules a retry: 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 12 h.',
        },
      },
    },
  };
}

/** One Cloud operation: tagged, keyed or public, with its body, answer and error codes. */
function cloudOperation(spec: {
  id: string;
  summary: string;
  description?: string;
  keyed: boolean;
  request?: string;
  response: [status: string, schemaId: string, description: string];
  errors: ErrorCode[];
  parameters?: JsonObject[];
}): JsonObject {
  const errors: ErrorCode[] = spec.keyed ? ['unauthorized', ...spec.errors] : spec.errors;
  return {
    operationId: spec.id,
    tags: ['Cloud'],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    security: spec.keyed ? [{ ApiKey: [] }] : [],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(spec.request) } } } } : {}),
    responses: { [spec.response[0]]: jsonBody(spec.response[1], spec.response[2]), ...errorResponses(errors) },
  };
}

/** Cloud (`/api/v1`): the multi-tenant variant; the same invoice bodies and fields as the listener. */
function cloudPaths(createErrors: ErrorCode[]): JsonObject {
  return {
    '/api/v1/signup': {
      post: cloudOperation({
        id: 'cloudSignup',
        summary: 'Create a Cloud account (Free plan)',
        description: 'Throttled per client IP. `api_key` and `webhook_secret` are shown once; only a hash of the key is stored.',
        keyed: false,
        request: 'SignupRequest',
        response: ['201', 'SignupResponse', 'The account id and its API key.'],
        errors: ['bad_body', 'invalid_email', 'invalid_shop_name', 'no_receive_method', 'private_key_rejected', 'invalid_xpub', 'invalid_address', 'invalid_webhook_url', 'email_taken', 'rate_limited'],
      }),
    },
    '/api/v1/me': { get: cloudOperation({ id: 'cloudMe', summary: 'The account of the API key', keyed: true, response: ['200', 'Account', 'No secrets.'], errors: [] }) },
    '/api/v1/invoices': {
      get: cloudOperation({
        id: 'cloudListInvoices',
        summary: "The merchant's invoices, most recent first",
        keyed: true,
        parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', default: 25 }, description: 'Clamped to 1-100.' }],
        response: ['200', 'InvoiceList', 'Most recent first.'],
        errors: [],
      }),
    },
    '/api/v1/webhook': {
      post: cloudOperation({
        id: 'cloudSetWebhook',
        summary: 'Save the webhook URL; issues a fresh signing secret',
        description: 'https, default port, host resolving only to public addresses (checked now and before every delivery). The previous secret stops signing.',
        keyed: true,
        request: 'WebhookSettingRequest',
        response: ['200', 'WebhookSettingResponse', 'The saved URL and the new secret (shown once).'],
        errors: ['bad_body', 'invalid_webhook_url'],
      }),
    },
    '/api/v1/plans': {
      get: cloudOperation({ id: 'cloudPlans', summary: 'Plan catalogue', keyed: false, response: ['200', 'PlanCatalogue', 'Plans, payment methods, transaction fee (0).'], errors: [] }),
    },
    '/api/v1/billing/checkout': {
      post: cloudOperation({
        id: 'cloudBillingCheckout',
        summary: 'Buy or renew a plan',
        description: '`crypto`: a Base stablecoin invoice whose hosted page is `checkout_url`; once it confirms the plan runs 30 days (a renewal of the same plan adds to the remaining time). `card`: a card processor page.',
        keyed: true,
        request: 'BillingCheckoutRequest',
        response: ['200', 'BillingCheckoutResponse', 'Where to pay.'],
        errors: ['bad_body', 'unknown_plan', 'method_unavailable', 'card_provider_error'],
      }),
    },
    '/api/v1/invoice': {
      post: cloudOperation({
        id: 'cloudCreateInvoice',
        summary: 'Create a pending invoice for the key\'s merchant',
        description: 'Same body as the listener POST /invoice. Rate limited per API key (60/min sliding window); 402 at the plan\'s monthly cap.',
        keyed: true,
        request: 'CreateInvoiceRequest',
        response: ['201', 'CloudCreatedInvoice', 'The invoice plus checkout_url when hosted checkout is enabled.'],
        errors: [...createErrors.filter((code) => code !== 'unauthorized'), 'plan_limit_reached'],
      }),
    },
    '/api/v1/invoice/{id}': {
      get: cloudOperation({
        id: 'cloudGetInvoice',
        summary: "Read one of the merchant's invoices",
        description: "Another merchant's invoice answers 404 `not_found`, exactly like a missing one.",
        keyed: true,
        parameters: [invoiceIdParameter],
        response: ['200', 'StoredInvoice', 'The stored invoice.'],
        errors: ['not_found', 'lookup_failed'],
      }),
    },
    '/api/v1/checkout/{id}': {
      get: cloudOperation({
        id: 'cloudCheckoutView',
        summary: 'Public display view of an invoice (CORS open)',
        keyed: false,
        parameters: [invoiceIdParameter],
        response: ['200', 'CheckoutView', 'Display-only fields.'],
        errors: ['not_found'],
      }),
    },
    '/api/v1/health': { get: cloudOperation({ id: 'cloudHealth', summary: 'Cloud liveness', keyed: false, response: ['200', 'CloudHealth', '{ok, service, ts}.'], errors: [] }) },
  };
}

/** The listener API as an OpenAPI 3.1 document, generated from the zod contract. */
export function buildOpenApiDocument(): JsonObject {
  const createErrors: ErrorCode[] = [
    'bad_body',
    'invalid_amount',
    'unsupported_chain',
    'chain_disabled',
    'base_disabled',
    'asset_disabled',
    'unauthorized',
    'rate_limited',
    'create_failed',
    'capacity',
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Service listener API',
      version: API_VERSION,
      summary: 'Non-custodial crypto payment invoices: Bitcoin, and USDC/USDT on Base, with signed webhooks.',
      description:
        'Create an invoice, show its address and amount to the payer, and learn of payment from the signed `invoice.confirmed` webhook (or by reading the invoice). The service never holds keys or funds.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'Self-hosted listener (default address); Cloud paths start with /api/v1' }],
    tags: [{ name: 'Cloud', description: 'Hosted multi-tenant variant (`service start --cloud`), early access. Every keyed request is scoped to the merchant owning the key.' }],
    security: [],
    paths: {
      '/invoice': {
        post: {
          operationId: 'createInvoice',
          summary: 'Create a pending invoice',
          description:
            'Requires `X-Service-Api-Key` when the listener has `SERVICE_API_KEY` set. Rate limited per client IP and overall (default 30/min and 300/min).',
          security: [{ ApiKey: [] }, {}],
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateInvoiceRequest') } } },
          responses: {
            '201': jsonBody('CreatedInvoice', 'The invoice, in the Bitcoin or Base shape.'),
            ...errorResponses(createErrors),
          },
        },
      },
      '/invoice/{id}': {
        get: {
          operationId: 'getInvoice',
          summary: 'Read a stored invoice',
          description:
            'No key required. A pending invoice past `expires_at` reads as `expired`. Use it to refresh a checkout page or reconcile after a missed webhook; poll sparingly.',
          parameters: [invoiceIdParameter],
          responses: {
            '200': jsonBody('StoredInvoice', 'The stored invoice.'),
            ...errorResponses(['not_found', 'lookup_failed']),
          },
        },
      },
      '/checkout/{id}': {
        get: {
          operationId: 'getCheckoutView',
          summary: "An invoice's checkout view (what its payment page shows)",
          description:
            'No key; public and CORS-open, like Cloud `GET /api/v1/checkout/{id}`. Display-only fields: never an xpub, secret, key or email. A pending invoice past `expires_at` reads as `expired`. The checkout page polls it every 5 s until the status is final.',
          parameters: [invoiceIdParameter],
          responses: {
            '200': jsonBody('CheckoutView', 'The checkout view, in the Bitcoin or Base shape.'),
            ...errorResponses(['not_found', 'lookup_failed']),
          },
        },
      },
      '/pay/{id}': {
        get: {
          operationId: 'getCheckoutPage',
          summary: 'Hosted checkout page of an invoice (HTML, for the payer)',
          description:
            "Shop name, exact amount, address with copy buttons, the QR code of `qr_uri` (SVG made by the service), a countdown to expiry and the live status. Give the payer this link. Served with a strict Content-Security-Policy (only this origin's own script, stylesheet and JSON).",
          parameters: [invoiceIdParameter],
          responses: {
            '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
            '404': { description: 'No such invoice: an HTML page saying so.', content: { 'text/html': { schema: { type: 'string' } } } },
            '500': { description: 'The invoice could not be read: an HTML page asking to reload.', content: { 'text/html': { schema: { type: 'string' } } } },
            ...errorResponses([]),
          },
        },
      },
      '/health': {
        get: {
          operationId: 'getHealth',
          summary: 'Liveness and chain-watcher state',
          responses: { '200': jsonBody('Health', 'Health object.'), ...errorResponses(['internal_error']) },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses([]) },
        },
      },
      '/llms.txt': {
        get: {
          operationId: 'getLlmsTxt',
          summary: 'Plain-text summary of the API for language models (llmstxt.org format)',
          responses: { '200': { description: 'Markdown text.', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses([]) },
        },
      },
      ...cloudPaths(createErrors),
    },
    webhooks: {
      'invoice.confirmed': webhookOperation('invoice.confirmed', 'InvoiceConfirmedEvent', 'An invoice reached its required confirmations'),
      'payment.orphan': webhookOperation('payment.orphan', 'PaymentOrphanEvent', 'A transfer matched no open invoice'),
    },
    components: {
      schemas: schemaComponents(),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Api-Key',
          description: 'The listener key (`SERVICE_API_KEY`), compared in constant time.',
        },
      },
    },
  };
}
