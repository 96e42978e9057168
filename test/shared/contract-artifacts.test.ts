import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { errorCatalogue } from '../../shared/index.ts';
import { routeTable } from '../../shared/routes.ts';
import { generatedArtifacts, generatedFiles } from '../../scripts/generate-docs.ts';
import { startTestListener } from '../helpers/listener.ts';

const root = new URL('../..', import.meta.url);

const files = await generatedFiles();

describe('generated artifacts', () => {
  for (const [path, content] of Object.entries(files)) {
    it(`${path} is up to date with the contract (run npm run generate)`, () => {
      assert.equal(readFileSync(new URL(path, root), 'utf8'), content);
    });
  }

  it('openapi.json is a valid OpenAPI 3.1 document (independent validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(readFileSync(new URL('openapi/openapi.json', root), 'utf8')));
    assert.equal(validator.version, '3.1');
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
  });

  it('describes every listener endpoint, the key scheme, both webhooks and every error code', () => {
    const document = JSON.parse(readFileSync(new URL('openapi/openapi.json', root), 'utf8'));
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, '0.6.0');
    const cloudPaths = ['signup', 'me', 'keys', 'invoices', 'webhook', 'lightning', 'plans', 'billing/checkout', 'invoice', 'invoice/{id}', 'x402/{id}', 'checkout/{id}', 'checkout/{id}/events', 'health', 'openapi.json', 'llms.txt', 'mcp'].map((p) => `/api/v1/${p}`);
    const listenerPaths = ['/checkout/{id}', '/checkout/{id}/events', '/health', '/invoice', '/invoice/{id}', '/invoices', '/llms.txt', '/mcp', '/metrics', '/openapi.json', '/pay/{id}', '/x402/{id}'];
    const oauthPaths = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/api/v1/mcp', '/.well-known/oauth-authorization-server', '/oauth/authorize', '/oauth/token', '/oauth/register', '/oauth/revoke'];
    assert.deepEqual(Object.keys(document.paths).sort(), [...listenerPaths, ...cloudPaths, ...oauthPaths].sort());
    assert.deepEqual(document.components.securitySchemes.ApiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Api-Key',
      description: document.components.securitySchemes.ApiKey.description,
    });
    // The two the specification names, and the three opt-in lifecycle events.
    assert.deepEqual(Object.keys(document.webhooks).sort(), ['invoice.confirmed', 'invoice.expired', 'invoice.partial', 'invoice.payment_seen', 'payment.orphan']);
    const createResponses = document.paths['/invoice'].post.responses;
    for (const status of ['201', '400', '401', '429', '500', '503']) assert.ok(createResponses[status], `POST /invoice ${status}`);
    assert.ok(createResponses['429'].headers['Retry-After']);
    const documentedCodes = JSON.stringify([document.paths, document.webhooks]);
    for (const code of Object.keys(errorCatalogue)) {
      assert.ok(documentedCodes.includes(`"${code}"`), `${code} is documented on an endpoint or webhook`);
    }
  });

  it('docs/reference.md gives every listed route a section with its errors, and every error code and schema', () => {
    const reference = readFileSync(new URL('docs/reference.md', root), 'utf8');
    for (const route of routeTable) {
      const heading = `### ${route.method.toUpperCase()} ${route.path}\n`;
      assert.equal(reference.includes(heading), !route.unlisted, `${heading.trim()} ${route.unlisted ? 'is unlisted, so absent' : 'has a section'}`);
      if (route.unlisted) continue;
      const section = reference.slice(reference.indexOf(heading), reference.indexOf('\n### ', reference.indexOf(heading) + 1));
      for (const code of route.errors) assert.match(section, new RegExp(`${errorCatalogue[code].status} \\[\`${code}\`\\]`), `${heading.trim()} lists ${code}`);
    }
    for (const [code, { status }] of Object.entries(errorCatalogue)) assert.ok(reference.includes(`<a id="${code}"></a>\`${code}\` | ${status} |`), `error ${code}`);
    const document = JSON.parse(readFileSync(new URL('openapi/openapi.json', root), 'utf8'));
    for (const schema of Object.keys(document.components.schemas)) assert.ok(reference.includes(`\n### ${schema}\n`), `schema ${schema}`);
  });

  it('the listener serves exactly the generated documents', async () => {
    const listener = await startTestListener();
    try {
      const openapi = await fetch(`${listener.url}/openapi.json`);
      assert.match(openapi.headers.get('content-type') ?? '', /application\/json/);
      assert.deepEqual(await openapi.json(), JSON.parse(generatedArtifacts()['openapi/openapi.json']));
      const llms = await fetch(`${listener.url}/llms.txt`);
      assert.match(llms.headers.get('content-type') ?? '', /text\/plain/);
      const text = await llms.text();
      assert.equal(text, generatedArtifacts()['llms.txt']);
      assert.match(text, /^# Service\n\n> /, 'llmstxt.org: an H1 title then a blockquote summary');
    } finally {
      await listener.stop();
    }
  });
});
