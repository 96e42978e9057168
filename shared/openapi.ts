import * as z from 'zod';
import { BaseCheckoutView, BtcCheckoutView, CheckoutView } from './checkout.ts';
import { ErrorDetail, ErrorEnvelope, errorCatalogue, type ErrorCode } from './errors.ts';
import { BaseHealth, BitcoinWatcherHealth, BtcHeaderChain, BtcHeaderSource, ChainHealth, ChainSourceBudget, Health, LightningHealth, LightningRelayHealth, WatcherProblem, WatcherProgress } from './health.ts';
import {
  BaseFixedInvoiceCreated,
  BaseInvoice,
  BaseXpubInvoiceCreated,
  BtcInvoice,
  BtcPaymentMethod,
  BtcInvoiceCreated,
  CreateInvoiceRequest,
  CreatedInvoice,
  InvoiceStatus,
  Verification,
  StoredInvoice,
} from './invoice.ts';
import { routeErrors, routeTable, type Route, type RouteContent } from './routes.ts';
import { API_VERSION, CONTRACT_VERSION } from './version.ts';
import { chainNameList, evmChainNames } from './chains.ts';
import { X402ChainHealth, X402Health, X402PaymentRequired, X402PaymentRequirements } from './x402.ts';
import { PriceCurrency, RateSourceHealth } from './prices.ts';
import {
  Account,
  BillingCheckoutRequest,
  BillingCheckoutResponse,
  CloudCreatedInvoice,
  CloudStoredInvoice,
  CloudHealth,
  InvoiceList,
  InvoiceListEntry,
  PlanCatalogue,
  ReceiveMethod,
  SignupRequest,
  SignupResponse,
  WebhookSettingRequest,
  CreateKeyRequest,
  CreatedKey,
  WebhookSettingResponse,
  LightningConnectionView,
  LightningSettingRequest,
  LightningSettingResponse,
} from './cloud.ts';
import { InvoiceConfirmedEvent, InvoiceExpiredEvent, InvoicePartialEvent, InvoicePaymentSeenEvent, OptInWebhookEvent, PaymentOrphanEvent, standardWebhookHeaders, webhookHeaders, webhookVerificationCodes } from './webhooks.ts';

type JsonObject = Record<string, unknown>;

/** Every schema with an id reachable from these must be listed too: each lands in components/schemas. */
const componentSchemas = [
  ErrorDetail,
  ErrorEnvelope,
  InvoiceStatus,
  Verification,
  CreateInvoiceRequest,
  BtcPaymentMethod,
  BtcInvoice,
  BtcInvoiceCreated,
  BaseInvoice,
  BaseXpubInvoiceCreated,
  BaseFixedInvoiceCreated,
  CreatedInvoice,
  StoredInvoice,
  BaseHealth,
  ChainSourceBudget,
  RateSourceHealth,
  LightningHealth,
  LightningRelayHealth,
  PriceCurrency,
  WatcherProgress,
  WatcherProblem,
  BtcHeaderSource,
  BtcHeaderChain,
  BitcoinWatcherHealth,
  ChainHealth,
  Health,
  BtcCheckoutView,
  BaseCheckoutView,
  CheckoutView,
  InvoiceConfirmedEvent,
  PaymentOrphanEvent,
  OptInWebhookEvent,
  InvoicePaymentSeenEvent,
  InvoicePartialEvent,
  InvoiceExpiredEvent,
  ReceiveMethod,
  SignupRequest,
  SignupResponse,
  Account,
  PlanCatalogue,
  InvoiceListEntry,
  InvoiceList,
  WebhookSettingRequest,
  CreateKeyRequest,
  CreatedKey,
  WebhookSettingResponse,
  LightningConnectionView,
  LightningSettingRequest,
  LightningSettingResponse,
  BillingCheckoutRequest,
  BillingCheckoutResponse,
  CloudCreatedInvoice,
  CloudStoredInvoice,
  CloudHealth,
  X402PaymentRequirements,
  X402PaymentRequired,
  X402ChainHealth,
  X402Health,
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
        header(webhookHeaders.signature, `Legacy: hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)); signs neither the timestamp nor the id, so verify ${standardWebhookHeaders.signature} instead.`, {
          type: 'string',
          pattern: '^[0-9a-f]{64}$',
        }),
        header(webhookHeaders.timestamp, 'Legacy: Unix epoch milliseconds of this attempt; not signed.', {
          type: 'string',
          pattern: '^[0-9]+$',
        }),
        header(webhookHeaders.eventId, `Legacy: the event id; not signed, never trust it alone (use ${standardWebhookHeaders.id} or the body's event_id).`, { type: 'string' }),
        header(webhookHeaders.attempt, 'Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send.', {
          type: 'string',
          pattern: '^[0-9]+$',
        }),
        header(standardWebhookHeaders.id, "Standard Webhooks: the event id, signed, the same on every retry and equal to the body's event_id: de-duplicate by it.", { type: 'string' }),
        header(standardWebhookHeaders.timestamp, 'Standard Webhooks: Unix epoch seconds of this attempt; signed. Reject if more than 5 minutes from your clock.', { type: 'string', pattern: '^[0-9]+$' }),
        header(
          standardWebhookHeaders.signature,
          'Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{raw body}`)); the key is the base64-decoded part after `whsec_`, or for a secret not of that form its own UTF-8 bytes.',
          { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=$' },
        ),
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

const jsonRef = (schema: z.ZodType): JsonObject => {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a JSON body of the route table needs a schema with .meta({ id })');
  return ref(id);
};

function content(body: RouteContent): JsonObject {
  return { [body.mediaType]: { schema: 'schema' in body ? jsonRef(body.schema) : body.jsonSchema } };
}

/**
 * Merchant-keyed routes need the key; the listener's create takes one when the listener has one.
 * Cloud operations state even an empty requirement; the listener's public ones inherit the top-level `[]`.
 * The key's roles are the scope the route declares (OpenAPI 3.1 lets an apiKey requirement name roles);
 * the MCP endpoint's depend on each message, so it names none.
 */
function security(route: Route, cloudOnly: boolean): JsonObject {
  const roles = route.scope === 'per-message' || route.scope === 'any' ? [] : [route.scope];
  if (route.auth === 'merchant-key') return { security: [{ ApiKey: roles }] };
  if (route.auth === 'listener-key') return { security: [{ ApiKey: roles }, {}] };
  return cloudOnly ? { security: [] } : {};
}

/**
 * A route's own answers and its envelope errors; where both give a status (an OAuth endpoint's own
 * 400 beside the edge's `bad_body`), one response holding both bodies: a media type each, or either schema.
 */
function mergeResponses(own: Record<string, JsonObject>, edge: Record<string, JsonObject>): JsonObject {
  const merged: Record<string, JsonObject> = { ...own, ...edge };
  for (const status of Object.keys(own).filter((status) => status in edge)) {
    const content = { ...(edge[status]!.content as Record<string, JsonObject>) };
    for (const [mediaType, media] of Object.entries((own[status]!.content ?? {}) as Record<string, JsonObject>)) {
      const shared = content[mediaType];
      content[mediaType] = shared ? { ...shared, schema: { anyOf: [shared.schema, media.schema] } } : media;
    }
    merged[status] = { ...edge[status], description: `${own[status]!.description}\n\n${edge[status]!.description}`, content };
  }
  return merged;
}

function operation(route: Route): JsonObject {
  const templated = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const pathParameters = (route.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  if (templated.join() !== pathParameters.join()) throw new Error(`${route.operationId}: path parameters ${pathParameters.join()} differ from ${route.path}`);
  const cloudOnly = !route.surfaces.includes('listener');
  const errors = routeErrors(route);
  const responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, response]) => {
      const bodies = [...(response.content ? [response.content] : []), ...(response.alternatives ?? [])];
      return [status, { description: response.description, ...(bodies.length ? { content: Object.assign({}, ...bodies.map(content)) } : {}) }];
    }),
  );
  return {
    operationId: route.operationId,
    ...(cloudOnly ? { tags: ['Cloud'] } : {}),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...security(route, cloudOnly),
    ...(route.parameters
      ? { parameters: route.parameters.map((p) => ({ name: p.name, in: p.in, required: p.required, schema: p.jsonSchema, description: p.description })) }
      : {}),
    ...(route.request ? { requestBody: { required: true, content: { 'application/json': { schema: jsonRef(route.request) } } } } : {}),
    responses: mergeResponses(responses, errorResponses(errors) as Record<string, JsonObject>),
  };
}

/** The document's paths: every listed route of the table, grouped by path template. */
function tablePaths(): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routeTable) {
    if (route.unlisted) continue;
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  }
  return paths;
}

/** The listener API as an OpenAPI 3.1 document, generated from the zod contract. */
export function buildOpenApiDocument(): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Service listener API',
      version: API_VERSION,
      'x-contract-version': CONTRACT_VERSION,
      summary: `Non-custodial crypto payment invoices: Bitcoin, and USDC/USDT on ${chainNameList(evmChainNames)}, with signed webhooks.`,
      description:
        'Create an invoice, show its address and amount to the payer, and learn of payment from the signed `invoice.confirmed` webhook (or by reading the invoice). The service never holds keys or funds.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'Self-hosted listener (default address); Cloud paths start with /api/v1' }],
    tags: [{ name: 'Cloud', description: 'Hosted multi-tenant variant (`service start --cloud`), early access. Every keyed request is scoped to the merchant owning the key.' }],
    security: [],
    paths: tablePaths(),
    webhooks: {
      'invoice.confirmed': webhookOperation('invoice.confirmed', 'InvoiceConfirmedEvent', 'An invoice reached its required confirmations'),
      'payment.orphan': webhookOperation('payment.orphan', 'PaymentOrphanEvent', 'A transfer matched no open invoice'),
      'invoice.payment_seen': webhookOperation('invoice.payment_seen', 'InvoicePaymentSeenEvent', 'Opt-in: a first payment toward an invoice was seen, not yet confirmed'),
      'invoice.partial': webhookOperation('invoice.partial', 'InvoicePartialEvent', 'Opt-in: payments in blocks do not cover an invoice yet'),
      'invoice.expired': webhookOperation('invoice.expired', 'InvoiceExpiredEvent', 'Opt-in: an invoice expired unpaid'),
    },
    components: {
      schemas: schemaComponents(),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Api-Key',
          description:
            'The listener key (`SERVICE_API_KEY`), compared in constant time, or a Cloud API key. An operation\'s roles name the scope it needs (`invoices:read`, `invoices:write`, or `full-access`: a key without scopes); the listener\'s key holds them all.',
        },
      },
    },
  };
}
