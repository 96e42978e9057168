import * as z from 'zod';
import { ErrorEnvelope, errorCatalogue, type ErrorCode } from './errors.ts';
import { Health } from './health.ts';
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
import { InvoiceConfirmedEvent, PaymentOrphanEvent, webhookHeaders, webhookVerificationCodes } from './webhooks.ts';

type JsonObject = Record<string, unknown>;

const componentSchemas = [
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
  Health,
  InvoiceConfirmedEvent,
  PaymentOrphanEvent,
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
  for (const schema of Object.values(schemas)) delete (schema as JsonObject).$schema;
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

/** Groups codes by their HTTP status into OpenAPI responses. */
function errorResponses(codes: ErrorCode[]): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
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
    servers: [{ url: 'http://127.0.0.1:8787', description: 'Self-hosted listener (default address)' }],
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
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The invoice id.' }],
          responses: {
            '200': jsonBody('StoredInvoice', 'The stored invoice.'),
            ...errorResponses(['not_found', 'lookup_failed']),
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
          responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
      '/llms.txt': {
        get: {
          operationId: 'getLlmsTxt',
          summary: 'Plain-text summary of the API for language models (llmstxt.org format)',
          responses: { '200': { description: 'Markdown text.', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
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
