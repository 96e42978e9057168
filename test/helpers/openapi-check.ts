import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type JsonObject = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** An Ajv for JSON Schema 2020-12 in strict mode: an unknown keyword or bad schema fails to compile. */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** The document with every `$ref` replaced by its target (an independent parser), after validating it. */
export async function dereferenced(document: JsonObject): Promise<JsonObject> {
  await SwaggerParser.validate(structuredClone(document) as any);
  return (await SwaggerParser.dereference(structuredClone(document) as any)) as JsonObject;
}

export interface Answer {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: string;
}

/**
 * Checks real answers against a served OpenAPI document: the path and method must be an operation,
 * the status one it lists, and a JSON body must validate against that status's schema. Records
 * which operation and status each answer covered.
 */
export function responseChecker(document: JsonObject) {
  const ajv = strictAjv();
  const compiled = new Map<object, ValidateFunction>();
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const covered = new Set<string>();

  function find(method: string, path: string) {
    const pathname = path.split('?')[0];
    const match = templates.find(({ pattern }) => pattern.test(pathname));
    const operation = match && document.paths[match.template][method.toLowerCase()];
    return operation ? { template: match.template, operation } : undefined;
  }

  function operationOf(method: string, path: string) {
    const found = find(method, path);
    if (!found) throw new Error(`${method} ${path.split('?')[0]} is not an operation of the document`);
    return found;
  }

  return {
    covered,
    isOperation: (method: string, path: string) => find(method, path) !== undefined,
    /** Throws with the schema errors when the answer does not match the document. */
    check(answer: Answer): void {
      const { template, operation } = operationOf(answer.method, answer.path);
      // `default` stands for every status the operation does not list on its own.
      const status = String(answer.status) in operation.responses || !operation.responses.default ? String(answer.status) : 'default';
      const where = `${answer.method} ${template} ${answer.status}${status === 'default' ? ' (default)' : ''}`;
      const response = operation.responses[status];
      if (!response) throw new Error(`${where} is not a documented status (${Object.keys(operation.responses).join(', ')}): ${answer.body.slice(0, 300)}`);
      covered.add(`${answer.method} ${template} ${status}`);
      if (!response.content) {
        if (answer.body !== '') throw new Error(`${where} is documented without a body but has one: ${answer.body.slice(0, 300)}`);
        return;
      }
      const mediaType = answer.contentType.split(';')[0].trim();
      const content = response.content?.[mediaType];
      if (!content) throw new Error(`${where}: ${mediaType} is not documented (${Object.keys(response.content ?? {}).join(', ')})`);
      if (mediaType === 'application/json') {
        let validate = compiled.get(content.schema);
        if (!validate) compiled.set(content.schema, (validate = ajv.compile(content.schema)));
        if (!validate(JSON.parse(answer.body))) {
          throw new Error(`${where} does not match its schema: ${ajv.errorsText(validate.errors)}\n${answer.body.slice(0, 500)}`);
        }
      }
    },
    /** Every operation and status the document lists, as `METHOD /template status`. */
    documented(prefix: (template: string) => boolean): string[] {
      return Object.entries(document.paths as JsonObject)
        .filter(([template]) => prefix(template))
        .flatMap(([template, operations]) =>
          Object.entries(operations as JsonObject).flatMap(([method, operation]) =>
            Object.keys(operation.responses).map((status) => `${method.toUpperCase()} ${template} ${status}`),
          ),
        );
    },
  };
}

/**
 * Opens a Server-Sent Events stream and returns the answer with its first event (the first block
 * carrying `data`; a `retry` or comment block dispatches nothing) as the body, then aborts; an
 * answer that is not a stream is read whole.
 */
export async function firstEvent(baseUrl: string, path: string): Promise<Answer & { event: string; data: string }> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  const contentType = response.headers.get('content-type') ?? '';
  const fields = (block: string, name: string) =>
    block.split(/\r?\n/).filter((line) => line.startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).replace(/^ /, ''));
  let body = '';
  if (!contentType.startsWith('text/event-stream')) body = await response.text();
  else {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    let event: string | undefined;
    while (event === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${path}: the stream ended before an event: ${received.slice(0, 300)}`);
      received += value;
      const blocks = received.split(/\r?\n\r?\n/).slice(0, -1);
      event = blocks.find((block) => fields(block, 'data').length > 0);
    }
    controller.abort();
    body = event;
  }
  return { method: 'GET', path, status: response.status, contentType, body, event: fields(body, 'event').join(''), data: fields(body, 'data').join('\n') };
}

/** Sends a request and returns the answer in the shape `responseChecker` reads; a body is JSON unless `bare`. */
export async function exchange(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Uint8Array; bare?: boolean; redirect?: RequestRedirect } = {},
): Promise<Answer & { json(): any; headers: Headers }> {
  const jsonBody = options.body !== undefined && !options.bare;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(jsonBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: typeof options.body === 'string' ? options.body : options.body && new Uint8Array(options.body),
    redirect: options.redirect,
  });
  const body = await response.text();
  return { method, path, status: response.status, contentType: response.headers.get('content-type') ?? '', body, json: () => JSON.parse(body), headers: response.headers };
}
