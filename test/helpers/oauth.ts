import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export const REDIRECT_URL = 'http://127.0.0.1:53682/callback';

/** The SDK's client-side OAuth state of one agent, in memory; the browser step is left to the test. */
export class TestOAuthProvider implements OAuthClientProvider {
  clientInfo: OAuthClientInformationMixed | undefined;
  savedTokens: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(
    readonly clientMetadata: OAuthClientMetadata = {
      client_name: 'Test agent',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl() {
    return REDIRECT_URL;
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.clientInfo = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Registers a public client (no secret, PKCE) by DCR at `issuer`; returns its client_id. */
export async function registerPublicClient(issuer: string, clientName: string, redirectUri = REDIRECT_URL): Promise<string> {
  const registered = await fetch(`${issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: clientName, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  return ((await registered.json()) as { client_id: string }).client_id;
}

/** A browser's cookies for one server, enough for the authorization redirects. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
  async fetch(url: string | URL, init: RequestInit = {}) {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: this.header() } });
    this.take(response);
    return response;
  }
}

export interface ConsentOutcome {
  /** The URL the browser was finally sent to (the client's redirect URI with code or error). */
  redirect: URL;
  consentStatus: number;
  consentPage: string;
}

/**
 * What a person does in the browser: open the authorization URL, sign in on the consent page with
 * `key` and press approve or deny, following the redirects to the client's redirect URI (the
 * request's `redirect_uri`, REDIRECT_URL when it names none), which is not opened.
 */
export async function answerConsent(authorizationUrl: URL, key: string, decision: 'approve' | 'deny', jar = new CookieJar()): Promise<ConsentOutcome> {
  let response = await jar.fetch(authorizationUrl);
  assert.equal(response.status, 303, await response.clone().text());
  const consentUrl = new URL(response.headers.get('location')!, authorizationUrl);
  response = await jar.fetch(consentUrl);
  const consentPage = await response.text();
  assert.equal(response.status, 200, consentPage);
  const csrf = /name="csrf" value="([^"]+)"/.exec(consentPage)![1]!;
  response = await jar.fetch(consentUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, api_key: key, decision }).toString(),
  });
  const consentStatus = response.status;
  let location = response.headers.get('location');
  let current = consentUrl;
  const redirectUri = authorizationUrl.searchParams.get('redirect_uri') ?? REDIRECT_URL;
  for (let hops = 0; location && hops < 5; hops++) {
    const next = new URL(location, current);
    if (next.href.startsWith(redirectUri)) return { redirect: next, consentStatus, consentPage };
    response = await jar.fetch(next);
    current = next;
    location = response.headers.get('location');
  }
  return { redirect: new URL('about:blank'), consentStatus, consentPage: await response.text() };
}

/**
 * Connects the SDK client to `mcpUrl` the OAuth way: the first connect meets the 401 and starts the
 * authorization (discovery, registration), the consent is approved with `key`, the code exchanged.
 */
export async function connectWithOAuth(mcpUrl: string, key: string, provider = new TestOAuthProvider()): Promise<{ client: Client; provider: TestOAuthProvider }> {
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })), UnauthorizedError);
  assert.ok(provider.authorizationUrl, 'the SDK asked for the browser step');
  const outcome = await answerConsent(provider.authorizationUrl, key, "approve");
  const { redirect } = outcome;
  const code = redirect.searchParams.get('code');
  assert.ok(code, `no code in ${redirect.href}: ${outcome.consentStatus} ${outcome.consentPage.slice(0, 600)}`);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await transport.finishAuth(code);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return { client, provider };
}

/**
 * What an MCP client discovers from a server, the points the conformance suite's client scenarios
 * (auth/metadata-*, auth/scope-from-www-authenticate, auth/basic-cimd) expect a server to offer:
 * the 401 challenge names the path-based resource metadata and the scopes; that metadata (also at
 * the root address) names the endpoint and the issuer; the issuer's RFC 8414 metadata, its issuer
 * exactly the address, offers PKCE S256 and Client ID Metadata Documents.
 */
export async function assertDiscovery(baseUrl: string, mcpPath: string): Promise<Record<string, unknown>> {
  const mcpUrl = `${baseUrl}${mcpPath}`;
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), `Bearer resource_metadata="${baseUrl}/.well-known/oauth-protected-resource${mcpPath}", scope="invoices:read invoices:write"`);
  assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'unauthorized');
  for (const path of ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${mcpPath}`]) {
    const metadata = (await (await fetch(`${baseUrl}${path}`)).json()) as Record<string, unknown>;
    assert.deepEqual(metadata, {
      resource: mcpUrl,
      authorization_servers: [baseUrl],
      scopes_supported: ['invoices:read', 'invoices:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Service payment invoices (MCP)',
    });
  }
  const server = (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.equal(server.issuer, baseUrl);
  assert.deepEqual(server.code_challenge_methods_supported, ['S256']);
  assert.equal(server.client_id_metadata_document_supported, true);
  assert.deepEqual(server.response_types_supported, ['code']);
  return server;
}
