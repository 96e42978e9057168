import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { RunningListener } from '../../../listener/app.ts';
import { startTestListener } from '../../helpers/listener.ts';
import { CookieJar, REDIRECT_URL } from '../../helpers/oauth.ts';

const API_KEY = 'oauth-bounds-test-key-0123456789';

const json = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const form = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
const client = (extra: Record<string, unknown> = {}) => ({ client_name: 'Bounded', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], ...extra });
const challenge = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

/** The authorization server's stored rows, by model. */
async function rowCounts(listener: RunningListener): Promise<Record<string, number>> {
  const rows = await listener.database.db.selectFrom('oauth_records').select(['model', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('model').execute();
  return Object.fromEntries(rows.map((r) => [r.model, Number(r.n)]));
}
/** Bytes of every stored OAuth row together. */
async function storedBytes(listener: RunningListener): Promise<number> {
  const rows = await listener.database.db.selectFrom('oauth_records').select('payload').execute();
  return rows.reduce((sum, r) => sum + r.payload.length, 0);
}

describe('OAuth: only the features offered, and bounded storage', () => {
  let listener: RunningListener;
  let clientId: string;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
    const registered = await json(`${listener.url}/oauth/register`, client());
    assert.equal(registered.status, 201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  after(async () => {
    await listener?.stop();
  });
  const authorizeUrl = (params: Record<string, string>) => {
    const url = new URL(`${listener.url}/oauth/authorize`);
    url.search = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URL, code_challenge: challenge(), code_challenge_method: 'S256', scope: 'invoices:read', resource: `${listener.url}/mcp`, ...params }).toString();
    return url;
  };

  test('the metadata names only the offered endpoints; logout, PAR, introspection, device, client read answer 404 and redirect nowhere', async () => {
    const metadata = (await (await fetch(`${listener.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    const endpoints = Object.keys(metadata).filter((key) => key.endsWith('_endpoint') || key === 'jwks_uri').sort();
    assert.deepEqual(endpoints, ['authorization_endpoint', 'jwks_uri', 'registration_endpoint', 'revocation_endpoint', 'token_endpoint']);
    assert.equal(metadata.dpop_signing_alg_values_supported, undefined, 'DPoP is not offered (the MCP endpoint takes bearer tokens)');
    assert.equal(metadata.require_pushed_authorization_requests, undefined);

    const before = await rowCounts(listener);
    const logout = await fetch(`${listener.url}/oauth/logout?post_logout_redirect_uri=${encodeURIComponent('https://evil.example/phish')}&client_id=${clientId}`, { redirect: 'manual' });
    assert.equal(logout.status, 404);
    assert.equal(logout.headers.get('location'), null);
    assert.doesNotMatch(await logout.text(), /evil\.example/, 'no auto-submitting form towards the other site');
    const par = await form(`${listener.url}/oauth/par`, { client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URL, state: 's'.repeat(50_000) });
    assert.equal(par.status, 404);
    for (const path of ['/oauth/introspect', '/oauth/device/auth', '/oauth/backchannel', '/oauth/userinfo', '/oauth/session/end', '/oauth/challenge']) {
      assert.equal((await form(`${listener.url}${path}`, { client_id: clientId, token: 'x' })).status, 404, path);
    }
    assert.equal((await fetch(`${listener.url}/oauth/register/${clientId}`)).status, 404, 'no client read endpoint');
    assert.deepEqual(await rowCounts(listener), before, 'nothing stored');
  });

  test('registration refuses fields of features not offered, with invalid_client_metadata, and stores nothing', async () => {
    const before = await rowCounts(listener);
    const unused: Record<string, unknown> = {
      post_logout_redirect_uris: ['https://evil.example/'],
      backchannel_logout_uri: 'https://evil.example/logout',
      frontchannel_logout_uri: 'https://evil.example/logout',
      request_uris: ['https://evil.example/request'],
      jwks_uri: 'https://evil.example/jwks',
      sector_identifier_uri: 'https://evil.example/sector',
      initiate_login_uri: 'https://evil.example/login',
      require_pushed_authorization_requests: true,
    };
    for (const [field, value] of Object.entries(unused)) {
      const refused = await json(`${listener.url}/oauth/register`, client({ [field]: value }));
      assert.equal(refused.status, 400, field);
      const body = (await refused.json()) as { error: string; error_description: string };
      assert.equal(body.error, 'invalid_client_metadata', field);
      assert.match(body.error_description, new RegExp(field));
    }
    assert.deepEqual(await rowCounts(listener), before);
    // What a client commonly sends besides is kept or ignored (an empty list of an unused field asks for nothing): registration still works.
    const usual = await json(`${listener.url}/oauth/register`, client({ client_uri: 'https://agent.example', logo_uri: 'https://agent.example/logo.png', software_id: 'agent', software_version: '1.2', scope: 'invoices:read', post_logout_redirect_uris: [] }));
    assert.equal(usual.status, 201, await usual.clone().text());
    const registered = (await usual.json()) as Record<string, unknown>;
    assert.equal(registered.registration_access_token, undefined, 'no registration access token (nor its stored row)');
    assert.equal(registered.registration_client_uri, undefined);
    assert.equal(registered.post_logout_redirect_uris, undefined);
  });

  test('client metadata is bounded: a 55 KB registration, a long URI, many contacts are refused and nothing is stored', async () => {
    const before = await rowCounts(listener);
    const bytesBefore = await storedBytes(listener);
    const cases: [string, Record<string, unknown>, string][] = [
      ['55 KB across the fields', { client_uri: `https://a.example/${'a'.repeat(900)}`, logo_uri: `https://a.example/${'b'.repeat(900)}`, tos_uri: `https://a.example/${'c'.repeat(900)}`, policy_uri: `https://a.example/${'d'.repeat(900)}`, contacts: Array.from({ length: 10 }, (_, i) => `${'e'.repeat(900)}${i}@a.example`), redirect_uris: Array.from({ length: 10 }, (_, i) => `http://127.0.0.1/${'f'.repeat(900)}${i}`) }, 'invalid_client_metadata'],
      ['a 5 KB client_uri', { client_uri: `https://a.example/${'a'.repeat(5000)}` }, 'invalid_client_metadata'],
      ['a 5 KB redirect URI', { redirect_uris: [`http://127.0.0.1/${'r'.repeat(5000)}`] }, 'invalid_redirect_uri'],
      ['100 contacts', { contacts: Array.from({ length: 100 }, (_, i) => `c${i}@a.example`) }, 'invalid_client_metadata'],
    ];
    for (const [what, extra, error] of cases) {
      const body = JSON.stringify(client(extra));
      const refused = await fetch(`${listener.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(refused.status, 400, what);
      assert.equal(((await refused.json()) as { error: string }).error, error, what);
    }
    assert.deepEqual(await rowCounts(listener), before);
    assert.equal(await storedBytes(listener), bytesBefore);
  });

  test('authorization parameters are bounded: a 15 KB state (or hint) stores no interaction; a normal one does', async () => {
    const before = await rowCounts(listener);
    for (const param of ['state', 'login_hint', 'ui_locales']) {
      const response = await fetch(authorizeUrl({ [param]: 'x'.repeat(15_000) }), { redirect: 'manual' });
      assert.equal(response.status, 303, param);
      const back = new URL(response.headers.get('location')!);
      assert.equal(back.origin + back.pathname, REDIRECT_URL, param);
      assert.equal(back.searchParams.get('error'), 'invalid_request', param);
      assert.match(back.searchParams.get('error_description')!, new RegExp(`${param} must be at most 1000 characters`));
    }
    // Each within its bound, together past 4,000 characters: refused as well.
    const together = await fetch(authorizeUrl({ scope: 'openid invoices:read', state: 's'.repeat(1000), login_hint: 'h'.repeat(1000), ui_locales: 'u'.repeat(1000), claims_locales: 'c'.repeat(1000) }), { redirect: 'manual' });
    assert.match(new URL(together.headers.get('location')!).searchParams.get('error_description')!, /parameters must be at most 4000 characters in all/);
    assert.deepEqual(await rowCounts(listener), before, 'no interaction stored');
    const normal = await new CookieJar().fetch(authorizeUrl({ state: 's'.repeat(1000) }));
    assert.equal(normal.status, 303);
    assert.match(normal.headers.get('location')!, /\/oauth\/consent\//);
    assert.equal((await rowCounts(listener)).Interaction, (before.Interaction ?? 0) + 1);
  });
});

describe('OAuth endpoints throttled per address (fresh listener)', () => {
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
  });
  after(async () => {
    await listener?.stop();
  });

  test('registrations: 20 a minute from one address, then 429 too_many_requests; 20 clients stored of 40 tries', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await json(`${listener.url}/oauth/register`, client());
      statuses.push(response.status);
      if (response.status === 429) {
        assert.equal(((await response.json()) as { error: string }).error, 'too_many_requests');
        assert.ok(Number(response.headers.get('retry-after')) > 0);
      } else await response.arrayBuffer();
    }
    assert.deepEqual(statuses, [...Array(20).fill(201), ...Array(20).fill(429)]);
    assert.equal((await rowCounts(listener)).Client, 20);
  });

  test('authorization requests: 60 a minute from one address, then 429; 60 interactions stored of 80', async () => {
    // One of the clients the test before registered (this address has used its registrations).
    const id = (await listener.database.db.selectFrom('oauth_records').select('client_id').where('model', '=', 'Client').executeTakeFirstOrThrow()).client_id!;
    const statuses: number[] = [];
    for (let i = 0; i < 80; i++) {
      const url = new URL(`${listener.url}/oauth/authorize`);
      url.search = new URLSearchParams({ client_id: id, response_type: 'code', redirect_uri: REDIRECT_URL, code_challenge: challenge(), code_challenge_method: 'S256', scope: 'invoices:read', resource: `${listener.url}/mcp`, state: `s${i}` }).toString();
      const response = await fetch(url, { redirect: 'manual' });
      statuses.push(response.status);
      if (response.status === 429) {
        assert.ok(Number(response.headers.get('retry-after')) > 0);
        assert.match(await response.text(), /temporarily_unavailable/);
      } else await response.arrayBuffer();
    }
    assert.deepEqual(statuses, [...Array(60).fill(303), ...Array(20).fill(429)]);
    assert.equal((await rowCounts(listener)).Interaction, 60);
  });

  test('token requests: 600 a minute from one address, then 429 too_many_requests with Retry-After', async () => {
    const statuses: number[] = [];
    let refusal: Response | undefined;
    for (let i = 0; i < 610; i++) {
      const response = await form(`${listener.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: `guess-${i}`, client_id: 'nobody' });
      statuses.push(response.status);
      if (response.status === 429) refusal = response;
      else await response.arrayBuffer();
    }
    assert.equal(statuses.filter((s) => s === 429).length, 10);
    assert.ok(statuses.slice(0, 600).every((s) => s !== 429), statuses.join(' '));
    assert.equal(((await refusal!.json()) as { error: string }).error, 'too_many_requests');
    assert.ok(Number(refusal!.headers.get('retry-after')) > 0);
  });
});
