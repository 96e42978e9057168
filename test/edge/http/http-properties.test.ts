/**
 * Property-based tests of the HTTP surface: random and hostile requests against a real listener and a
 * real Cloud. Seeded and bounded; reproduce a failure with the seed (and path) fast-check prints:
 * PROPERTY_SEED=<seed> PROPERTY_RUNS=<n> node --import tsx --test test/edge/http/http-properties.test.ts
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import type { RunningListener } from '../../../listener/app.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { errorCatalogue, type ErrorCode } from '../../../shared/index.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { BIP84_ZPUB, startTestListener } from '../../helpers/listener.ts';
import { dereferenced, exchange, responseChecker, type Answer } from '../../helpers/openapi-check.ts';
import { rawExchange } from '../../helpers/raw-http.ts';

const SEED = Number(process.env.PROPERTY_SEED ?? 14_2026);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 250);

/** Tables a refusal may legitimately write: the sliding windows count attempts, per the spec. */
const ATTEMPT_COUNTERS = /rate/;

/** Every row of every table but the attempt counters, as text: what a refusal must leave unchanged. */
async function storedState(db: Kysely<any>): Promise<string> {
  const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(db);
  const dump: Record<string, unknown[]> = {};
  for (const { name } of tables.rows) {
    if (ATTEMPT_COUNTERS.test(name)) continue;
    dump[name] = (await sql`SELECT * FROM ${sql.table(name)}`.execute(db)).rows.map((row) => JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? String(value) : value))).sort();
  }
  return JSON.stringify(dump);
}

const loneSurrogate = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');
/** Text that is sometimes not well-formed: ordinary characters with unpaired surrogates mixed in. */
const hostileText = fc.string({ unit: fc.oneof({ weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }) }, { weight: 1, arbitrary: loneSurrogate }), maxLength: 40 });
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileText, fc.double(), fc.bigInt().map(String));

/** Number text the JSON grammar allows but a double cannot hold exactly: huge, tiny, long, negative zero. */
const hostileNumberText = fc.oneof(
  fc.bigInt({ min: -(10n ** 80n), max: 10n ** 80n }).map(String),
  fc.constantFrom('1e400', '-1e400', '1e-400', '-0', '0.1e1', '9007199254740993', '1.0000000000000000000001', '100000000000000000000000000000'),
  fc.double().filter(Number.isFinite).map(String),
);

/** Mostly the valid value, sometimes a hostile one: a request must get past the early checks to test the late ones. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostile });

const absent = fc.constant(undefined);

/** An invoice body close to valid, with fields possibly wrong, hostile or extra, as JSON text (numbers spelled raw). */
const invoiceishBody = fc
  .record({
    chain: mostly(fc.constant('btc'), fc.oneof(fc.constantFrom('base', 'BTC', ''), hostileText, anyJson)),
    amount_sats: mostly(fc.integer({ min: 1, max: 100_000_000 }).map(String), hostileNumberText),
    amount_usd: mostly(absent, hostileNumberText),
    memo: mostly(hostileText, fc.oneof(absent, fc.string({ maxLength: 260 }), anyJson)),
    expires_in: mostly(fc.oneof(absent, fc.integer({ min: 1, max: 10_000_000 }).map(String)), hostileNumberText),
    asset: mostly(absent, fc.oneof(fc.constantFrom('usdc', 'usdt', 'eth'), anyJson)),
    extra: mostly(absent, anyJson),
  })
  .map(({ amount_sats, amount_usd, expires_in, extra, ...fields }) => {
    const json = (value: unknown) => JSON.stringify(value) ?? 'null';
    const parts = Object.entries(fields).filter(([, value]) => value !== undefined).map(([key, value]) => `${json(key)}:${json(value)}`);
    parts.push(`"amount_sats":${amount_sats}`);
    if (amount_usd !== undefined) parts.push(`"amount_usd":${amount_usd}`);
    if (expires_in !== undefined) parts.push(`"expires_in":${expires_in}`);
    if (extra !== undefined) parts.push(`${json(String(extra))}:${json(extra)}`);
    return Buffer.from(`{${parts.join(',')}}`);
  });

/** Bodies from plausible to hostile, as the bytes sent. */
const body = fc.oneof(
  { weight: 8, arbitrary: invoiceishBody },
  { weight: 2, arbitrary: fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 9_000 }).map((depth) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4_000 }).map((depth) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
  // Valid JSON with bytes that are not UTF-8 inside a string.
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes) => Buffer.concat([Buffer.from('{"chain":"btc","amount_sats":1000,"memo":"'), Buffer.from(bytes.map((b) => b | 0x80)), Buffer.from('"}')])) },
  { weight: 1, arbitrary: fc.integer({ min: 16 * 1024 - 8, max: 40_000 }).map((size) => Buffer.from(`{"memo":"${'m'.repeat(size)}"}`)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const contentType = mostly(
  fc.constant('application/json'),
  fc.option(fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'garbage'), { nil: undefined }),
);

/** A path segment: ordinary text (percent-encoded), raw escapes of any bytes, or something long. */
const idSegment = mostly(
  fc.string({ maxLength: 30 }).map((text) => encodeURIComponent(text)),
  fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom('%', '%zz', '%ED%A0%80', '..', '%2e%2e', 'inv_00000000', `${'i'.repeat(3_000)}`)),
);

const querySuffix = mostly(
  fc.constant(undefined),
  fc.oneof(
    fc.constantFrom('limit=5', 'limit=-1', 'limit=1e400', 'limit=abc', 'limit=%ff', 'limit=', 'limit[]=1&limit=2', '%E0%A4%A'),
    fc.uint8Array({ maxLength: 6 }).map((bytes) => `x=${[...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`),
  ),
);

interface Surface {
  routes: Array<{ method: string; path: (id: string) => string }>;
  keys: string[];
}

function requestArbitrary(surface: Surface) {
  return fc.record({
    route: fc.constantFrom(...surface.routes),
    method: mostly(fc.constant(undefined), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH')),
    id: idSegment,
    query: querySuffix,
    body,
    contentType,
    apiKey: fc.option(mostly(fc.constantFrom(...surface.keys), fc.string({ unit: 'binary-ascii', maxLength: 60 }).filter((key) => /^[\x20-\x7e]*$/.test(key))), { nil: undefined }),
    requestId: fc.option(fc.string({ unit: 'binary-ascii', maxLength: 80 }).filter((id) => /^[\x20-\x7e]*$/.test(id)), { nil: undefined }),
  });
}

type Checker = ReturnType<typeof responseChecker>;

/**
 * The invariants of one answer: never a 5xx; an error is the envelope with a catalogue code whose
 * status it carries; an answer of a documented operation matches the served document; a refusal
 * leaves every stored row as it was.
 */
async function checkAnswer(answer: Answer, check: Checker, stateBefore: string, stateAfter: () => Promise<string>) {
  const where = `${answer.method} ${answer.path.slice(0, 120)} → ${answer.status} ${answer.body.slice(0, 200)}`;
  assert.ok(answer.status < 500, where);
  if (answer.status >= 400) {
    assert.match(answer.contentType, /^application\/json/, where);
    const envelope = JSON.parse(answer.body);
    const code = envelope?.error?.code as ErrorCode;
    assert.ok(code in errorCatalogue, where);
    assert.equal(errorCatalogue[code].status, answer.status, where);
    assert.equal(typeof envelope.error.message, 'string', where);
    assert.equal(await stateAfter(), stateBefore, `a refusal changed stored state: ${where}`);
  }
  if (check.isOperation(answer.method, answer.path)) check.check(answer);
  else assert.ok(answer.status === 404 || answer.status === 405 || answer.status === 400 || answer.status === 431 || answer.status === 204, where);
}

async function runSurface(baseUrl: string, surface: Surface, db: Kysely<any>, check: Checker) {
  let sent = 0;
  // A failing case is shrunk to a small one; the seed and path printed reproduce it.
  await fc.assert(
    fc.asyncProperty(requestArbitrary(surface), async (request) => {
      const method = request.method ?? request.route.method;
      const path = `${request.route.path(request.id)}${request.query === undefined ? '' : `?${request.query}`}`;
      const headers: Record<string, string> = {};
      if (request.contentType) headers['content-type'] = request.contentType;
      if (request.apiKey !== undefined) headers['X-Service-Api-Key'] = request.apiKey;
      if (request.requestId !== undefined) headers['X-Request-Id'] = request.requestId;
      const sendsBody = method !== 'GET' && request.body !== undefined;
      const before = await storedState(db);
      const answer = await exchange(baseUrl, method, path, { headers, body: sendsBody ? request.body : undefined, bare: true });
      sent++;
      await checkAnswer(answer, check, before, () => storedState(db));
    }),
    { seed: SEED, numRuns: RUNS },
  );
  return sent;
}

const headerValue = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc.uint8Array({ maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.integer({ min: 1, max: 24_000 }).map((size) => 'v'.repeat(size)),
);

/** Requests as bytes on the wire: any method token, target and header lines, malformed framing included. */
const rawRequest = fc
  .record({
    method: fc.oneof(fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'CONNECT', 'PRI'), fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 8 })),
    target: fc.oneof(fc.constantFrom('/health', '/invoice', '/invoice/x', '*', 'http://a/health', ''), idSegment.map((id) => `/invoice/${id}`), fc.string({ unit: 'binary', maxLength: 30 })),
    version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 ', 'FOO'),
    headers: fc.array(fc.tuple(fc.oneof(fc.constantFrom('Host', 'Content-Length', 'Transfer-Encoding', 'X-Service-Api-Key', 'Content-Type'), fc.string({ unit: 'binary-ascii', maxLength: 12 })), headerValue), { maxLength: 5 }),
    body: fc.uint8Array({ maxLength: 40 }),
  })
  .map(({ method, target, version, headers, body }) => {
    const head = `${method} ${target} ${version}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Connection: close\r\n\r\n`;
    return Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(body)]);
  });

describe(`HTTP surface properties (seed ${SEED}, ${RUNS} runs each)`, () => {
  let listener: RunningListener;
  let cloud: RunningCloud;
  let cloudKey: string;
  let cloudInvoiceId: string;
  let listenerInvoiceId: string;

  before(async () => {
    listener = await startTestListener();
    cloud = await startTestCloud({ env: { CLOUD_SIGNUP_RATE_LIMIT: '100000,100000', CLOUD_INVOICE_RATE_LIMIT: 'off' } });
    cloudKey = (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key;
    const cloudInvoice = await exchange(cloud.url, 'POST', '/api/v1/invoice', { headers: { 'X-Service-Api-Key': cloudKey }, body: '{"chain":"btc","amount_sats":1000}' });
    cloudInvoiceId = cloudInvoice.json().invoice_id;
    listenerInvoiceId = (await exchange(listener.url, 'POST', '/invoice', { body: '{"chain":"btc","amount_sats":1000}' })).json().invoice_id;
  });
  after(() => Promise.all([listener?.stop(), cloud?.stop()]));

  it('listener: every answer is a success of the document or the envelope with a catalogue code, never a 5xx; refusals change nothing stored', async () => {
    const check = responseChecker(await dereferenced(await (await fetch(`${listener.url}/openapi.json`)).json()));
    const sent = await runSurface(
      listener.url,
      {
        keys: ['any-key'],
        routes: [
          { method: 'POST', path: () => '/invoice' },
          { method: 'POST', path: () => '/invoice' },
          { method: 'GET', path: (id) => `/invoice/${id}` },
          { method: 'GET', path: () => `/invoice/${listenerInvoiceId}` },
          { method: 'GET', path: (id) => `/checkout/${id}` },
          { method: 'GET', path: () => '/health' },
          { method: 'GET', path: (id) => `/${id}` },
        ],
      },
      listener.database.db,
      check,
    );
    assert.equal(sent, RUNS);
  });

  it('raw requests on the wire: every answer is well-formed HTTP, never a 5xx, and an error carries the envelope', async () => {
    await fc.assert(
      fc.asyncProperty(rawRequest, async (request) => {
        const answer = await rawExchange(listener.url, request);
        // A request cut short by the client's half-close may get no answer at all; anything sent must be HTTP.
        if (answer === '') return;
        const where = `${request.toString('latin1').slice(0, 160)} → ${answer.slice(0, 200)}`;
        const status = /^HTTP\/1\.[01] (\d{3}) /.exec(answer);
        assert.ok(status, where);
        assert.ok(Number(status[1]) < 500, where);
        const [head, ...rest] = answer.split('\r\n\r\n');
        if (Number(status[1]) >= 400 && !/^HEAD /.test(request.toString('latin1'))) {
          assert.match(head, /\r\ncontent-type: application\/json/i, where);
          const code = JSON.parse(rest.join('\r\n\r\n')).error.code as ErrorCode;
          assert.equal(errorCatalogue[code]?.status, Number(status[1]), where);
        }
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('Cloud: the same invariants on every /api/v1 route, keyed or not; usage counts only created invoices', async () => {
    const check = responseChecker(await dereferenced(await (await fetch(`${cloud.url}/api/v1/openapi.json`)).json()));
    const sent = await runSurface(
      cloud.url,
      {
        keys: [cloudKey, cloudKey, cloudKey, 'sk_not_a_key'],
        routes: [
          { method: 'POST', path: () => '/api/v1/invoice' },
          { method: 'POST', path: () => '/api/v1/invoice' },
          { method: 'POST', path: () => '/api/v1/invoice' },
          { method: 'POST', path: () => '/api/v1/signup' },
          { method: 'POST', path: () => '/api/v1/webhook' },
          { method: 'POST', path: () => '/api/v1/billing/checkout' },
          { method: 'GET', path: (id) => `/api/v1/invoice/${id}` },
          { method: 'GET', path: () => `/api/v1/invoice/${cloudInvoiceId}` },
          { method: 'GET', path: (id) => `/api/v1/checkout/${id}` },
          { method: 'GET', path: () => '/api/v1/invoices' },
          { method: 'GET', path: () => '/api/v1/me' },
          { method: 'GET', path: () => '/api/v1/plans' },
          { method: 'GET', path: () => '/api/v1/health' },
          { method: 'GET', path: (id) => `/api/v1/${id}` },
        ],
      },
      cloud.database.db,
      check,
    );
    assert.equal(sent, RUNS);
    const me = await exchange(cloud.url, 'GET', '/api/v1/me', { headers: { 'X-Service-Api-Key': cloudKey } });
    const list = await exchange(cloud.url, 'GET', '/api/v1/invoices?limit=100', { headers: { 'X-Service-Api-Key': cloudKey } });
    assert.equal(me.json().usage.invoices_this_month, list.json().invoices.length, 'usage equals the invoices stored');
  });
});
