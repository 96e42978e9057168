import * as z from 'zod';
import { errorCatalogue, type ErrorCode } from './errors.ts';
import { DEFAULT_EXPIRES_IN_S, MAX_SATS, MEMO_MAX_LENGTH } from './invoice.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { routeErrors, routeTable, type Route } from './routes.ts';
import { API_VERSION, CONTRACT_VERSION } from './version.ts';
import { WEBHOOK_ACK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_TIMESTAMP_TOLERANCE_MS, standardWebhookHeaders, webhookHeaders, webhookRetryDelaysMs } from './webhooks.ts';

/**
 * docs/reference.md: every endpoint, field, error and limit of the interface, written from the
 * contract (the route table, the zod schemas through the OpenAPI document, the error catalogue),
 * so the reference cannot drift from what the service answers. `npm run generate` writes it.
 */

type Json = Record<string, unknown>;

const AUTH: Record<Route['auth'], string> = {
  public: 'none',
  'listener-key': '`X-Service-Api-Key` when the listener has `SERVICE_API_KEY` set',
  'merchant-key': "the merchant's API key in `X-Service-Api-Key`",
};

const KEY_NEEDED: Record<Route['auth'], string> = { public: 'no', 'listener-key': 'when set', 'merchant-key': 'yes' };

const edition = (route: Route) => route.surfaces.map((surface) => (surface === 'cloud' ? 'Cloud' : 'listener')).join(', ');

/** The heading of an endpoint, and its anchor as GitHub derives it (lower case, punctuation dropped, spaces to hyphens). */
const endpointHeading = (route: Route) => `${route.method.toUpperCase()} ${route.path}`;
const anchor = (heading: string) => heading.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** A JSON Schema in a few words, linking named schemas to their section. */
function typeOf(schema: Json): string {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return `[${name}](#${name.toLowerCase()})`;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Json[] | undefined;
    if (options) return options.map(typeOf).join(' or ');
  }
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  if (schema.type === 'array') return `array of ${typeOf((schema.items as Json | undefined) ?? {})}`;
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  if (schema.type === 'object' && schema.properties) return 'object (below)';
  if (typeof schema.type === 'string') return schema.format ? `${schema.type} (${schema.format})` : schema.type;
  return 'any';
}

function fieldRows(schema: Json, prefix = ''): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).flatMap(([name, property]) => {
    const row = `| \`${prefix}${name}\` | ${cell(typeOf(property))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(String(property.description ?? ''))} |`;
    const items = property.type === 'array' ? (property.items as Json | undefined) : property;
    const nested = items?.type === 'object' && items.properties ? fieldRows(items, `${prefix}${name}${property.type === 'array' ? '[]' : ''}.`) : [];
    return [row, ...nested];
  });
}

function schemaSection(name: string, schema: Json): string {
  const lines = [`### ${name}`, ''];
  if (schema.description) lines.push(String(schema.description), '');
  if (schema.properties) {
    lines.push('| field | type | required | description |', '|---|---|---|---|', ...fieldRows(schema), '');
  } else {
    lines.push(`${schema.anyOf || schema.oneOf ? 'One of' : 'Type'}: ${typeOf(schema)}.`, '');
  }
  return lines.join('\n');
}

/** What a route answers with, besides its own codes: a malformed request fails before any route. */
function referenceErrors(route: Route): ErrorCode[] {
  return [...new Set<ErrorCode>(['bad_body', 'headers_too_large', ...routeErrors(route)])];
}

function endpointSection(route: Route): string {
  const lines = [`### ${endpointHeading(route)}`, '', `${route.summary}.`, ''];
  if (route.description) lines.push(route.description, '');
  lines.push(`- Editions: ${edition(route)}.`, `- Key: ${AUTH[route.auth]}.`);
  for (const parameter of route.parameters ?? []) {
    lines.push(`- ${parameter.in === 'path' ? 'Path' : 'Query'} parameter \`${parameter.name}\`${parameter.required ? '' : ' (optional)'}: ${parameter.description}`);
  }
  const body = route.request && z.globalRegistry.get(route.request)?.id;
  if (body) lines.push(`- Body: ${typeOf({ $ref: body })}.`);
  lines.push('', '| status | answer |', '|---|---|');
  for (const [status, response] of Object.entries(route.responses)) {
    const content = response.content;
    const id = content && 'schema' in content ? z.globalRegistry.get(content.schema)?.id : undefined;
    const shape = id ? ` Body: ${typeOf({ $ref: id })}.` : content ? ` \`${content.mediaType}\`.` : '';
    const others = (response.alternatives ?? []).map((alternative) => ` Or \`${alternative.mediaType}\`.`).join('');
    lines.push(`| ${status} | ${cell(response.description + shape + others)} |`);
  }
  const codes = referenceErrors(route).sort((a, b) => errorCatalogue[a].status - errorCatalogue[b].status);
  lines.push(`| errors | ${codes.map((code) => `${errorCatalogue[code].status} [\`${code}\`](#${code})`).join(', ')} |`, '');
  return lines.join('\n');
}

const formatDelay = (ms: number) => (ms >= 3_600_000 ? `${ms / 3_600_000} h` : ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`);

export function buildReferenceMarkdown(): string {
  const document = buildOpenApiDocument() as { components: { schemas: Record<string, Json> } };
  const listed = routeTable.filter((route) => !route.unlisted);
  const schemas = document.components.schemas;
  const eventSchemas = ['InvoiceConfirmedEvent', 'PaymentOrphanEvent'];
  const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];
  return `# Interface reference

<!-- Generated by \`npm run generate\` from shared/ (the route table, the zod schemas, the error catalogue). Do not edit by hand: test/shared/contract-artifacts.test.ts fails when it is stale. -->

Interface version ${API_VERSION}, contract ${CONTRACT_VERSION} (what changed, and what replaces each deprecated
field: [changelog](changelog.md)). The same description, machine-readable, is served at
\`GET /openapi.json\` (OpenAPI 3.1) and for language models at \`GET /llms.txt\`. How to use it:
[invoices](invoices.md), [webhooks](webhooks.md), [Cloud](cloud.md), [agents](agents.md).

## Conventions

- Request and response bodies are JSON (UTF-8). The self-hosted listener answers at
  \`http://127.0.0.1:8787\` by default; Cloud's paths start with \`/api/v1\`.
- Every error answer is the envelope \`{"error": {"code": "…", "message": "…"}}\`: branch on
  \`code\` (listed under [errors](#errors)), never on \`message\`. Where several codes mean the same,
  \`condition\` names it (listed under [errors](#errors)).
- A key goes in \`X-Service-Api-Key\` (the MCP endpoints also take \`Authorization: Bearer\`).
- Amounts: Bitcoin in integer satoshis (1 to ${MAX_SATS.toLocaleString('en-US')}), EVM chains in US dollars
  with at most 6 decimals; amounts in answers are decimal strings in the asset's unit.

## Limits

| what | limit |
|---|---|
| request body | 16 KB; more answers 400 \`bad_body\` |
| request line and headers | 16 KB; more answers 431 \`headers_too_large\` |
| \`memo\` | ${MEMO_MAX_LENGTH} characters |
| invoice lifetime | \`expires_in\` seconds, default ${DEFAULT_EXPIRES_IN_S}; fixed-address invoices one hour |
| listener \`POST /invoice\` | \`SERVICE_RATE_LIMIT\`, default 30 per client IP and 300 overall per sliding minute; 429 \`rate_limited\` with \`Retry-After\` |
| Cloud \`POST /api/v1/invoice\` | 60 per API key per sliding minute (\`CLOUD_INVOICE_RATE_LIMIT\`), and the plan's invoices per calendar month (402 \`plan_limit_reached\`) |
| Cloud \`POST /api/v1/signup\` | 5 per client IP and 60 overall per sliding minute (\`CLOUD_SIGNUP_RATE_LIMIT\`); the overall window never refuses an address's first sign-up of the minute |
| OAuth \`/oauth/register\`, \`/oauth/authorize\`, \`/oauth/token\` | 20, 60 and 600 per client IP per sliding minute; 429 with \`Retry-After\` |
| \`GET /api/v1/invoices\` | \`limit\` clamped to 1-100, default 25 |
| webhook answer | any 2xx within ${WEBHOOK_ACK_TIMEOUT_MS / 1000} s; ${WEBHOOK_MAX_ATTEMPTS} attempts in all |

## Endpoints

| method and path | editions | key | what |
|---|---|---|---|
${listed.map((route) => `| [\`${endpointHeading(route)}\`](#${anchor(endpointHeading(route))}) | ${edition(route)} | ${KEY_NEEDED[route.auth]} | ${cell(route.summary)} |`).join('\n')}

Any other path or method answers 404 \`not_found\`.

${listed.map(endpointSection).join('\n')}
## Schemas

${Object.entries(schemas)
  .filter(([name]) => !eventSchemas.includes(name))
  .map(([name, schema]) => schemaSection(name, schema))
  .join('\n')}
## Webhook events

Each event is a \`POST\` of JSON to the merchant's webhook URL with these headers:

| header | value |
|---|---|
| \`${standardWebhookHeaders.id}\` | the event id, signed, the same on every attempt (and the body's \`event_id\`): de-duplicate by it |
| \`${standardWebhookHeaders.timestamp}\` | epoch seconds of this attempt, signed; reject beyond ${WEBHOOK_TIMESTAMP_TOLERANCE_MS / 60_000} minutes from your clock |
| \`${standardWebhookHeaders.signature}\` | \`v1,\` + base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{raw body}\` (Standard Webhooks): verify this one |
| \`${webhookHeaders.signature}\` | legacy: hex HMAC-SHA256 of the raw body bytes alone, keyed by the webhook secret |
| \`${webhookHeaders.timestamp}\` | legacy: epoch milliseconds of this attempt (not signed) |
| \`${webhookHeaders.eventId}\` | legacy: the event id (not signed; never trust it alone) |
| \`${webhookHeaders.attempt}\` | 1-based attempt number (not signed) |

An answer other than 2xx within ${WEBHOOK_ACK_TIMEOUT_MS / 1000} s is retried after ${webhookRetryDelaysMs.map(formatDelay).join(', ')}.

${eventSchemas.map((name) => schemaSection(name, schemas[name])).join('\n')}
## Errors

| code | status | when |
|---|---|---|
${errorCodes.map((code) => `| <a id="${code}"></a>\`${code}\` | ${errorCatalogue[code].status} | ${cell(errorCatalogue[code].description)} |`).join('\n')}
`;
}
