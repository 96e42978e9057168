import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import Koa from 'koa';
import { keyAccessOf, KEY_ACCESS } from '../../../cloud/keys/api-keys.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { parseCreateInvoiceRequest } from '../../../core/invoices/create-request.ts';
import { ServiceError } from '../../../core/errors.ts';
import { readFormBody } from '../../../edge/http/form-body.ts';
import { serveHttp, closeServer } from '../../../edge/http/serve.ts';
import { missingScope } from '../../../edge/oauth/scopes.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { open, postForm, signIn } from '../../helpers/dashboard.ts';
import { BIP84_ZPUB } from '../../helpers/listener.ts';

/** Names every plain object answers through its prototype: the keys a lookup must not reach. */
const inherited = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];
/** An inherited name, or any other string. */
const anyKey = fc.oneof(fc.constantFrom(...inherited), fc.string());

describe('no lookup keyed by request data reaches inherited properties', () => {
  test('dashboard key access levels: only KEY_ACCESS\'s own names are levels', () => {
    fc.assert(
      fc.property(anyKey, (name) => {
        const access = keyAccessOf(name);
        if (Object.hasOwn(KEY_ACCESS, name)) assert.deepEqual(access, KEY_ACCESS[name as keyof typeof KEY_ACCESS]);
        else assert.equal(access, undefined, name);
      }),
    );
    assert.equal(keyAccessOf(undefined), null, 'no access field: full access, as before');
  });

  test('MCP tool scopes: a tool named after an inherited property is undeclared (full access only), never a function', () => {
    fc.assert(
      fc.property(anyKey, (name) => {
        const needed = missingScope({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } }, new Set());
        assert.ok(needed === 'invoices:read' || needed === 'invoices:write' || needed === 'full-access', `${name}: ${String(needed)}`);
      }),
    );
  });

  test('invoice create bodies: a field named after an inherited property is bad_body, never a crash', () => {
    fc.assert(
      fc.property(anyKey, (name) => {
        try {
          parseCreateInvoiceRequest({ amount_sats: 1000, [name]: 1 }, () => null);
        } catch (error) {
          assert.ok(error instanceof ServiceError, `${name}: ${String(error)}`);
        }
      }),
    );
  });

  test('form bodies: fields have no prototype, so an absent `constructor` reads as undefined and `__proto__` is a plain field', async () => {
    const app = new Koa();
    app.use(async (ctx) => {
      const form = await readFormBody(ctx);
      ctx.body = { constructor: typeof form.constructor, toString: typeof form.toString, proto: form.__proto__ ?? null, keys: Object.keys(form) };
    });
    const { server, url } = await serveHttp(app, 0, '127.0.0.1');
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '__proto__=x&a=1' });
      assert.deepEqual(await response.json(), { constructor: 'undefined', toString: 'undefined', proto: 'x', keys: ['__proto__', 'a'] });
    } finally {
      await closeServer(server);
    }
  });

  test('sandbox chain control: an action named after an inherited property is not found, and the server keeps serving', async () => {
    const chain = new LocalBtcChain();
    const server = await startLocalChainServer(chain, { extraControl: { noop: async () => ({ ok: true }) } });
    try {
      for (const action of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        const response = await fetch(`${server.controlUrl}/${action}`, { method: 'POST', body: '{}' });
        assert.equal(response.status, 404, action);
      }
      assert.deepEqual(await (await fetch(`${server.controlUrl}/noop`, { method: 'POST', body: '{}' })).json(), { ok: true });
    } finally {
      await server.close();
    }
  });
});

describe('dashboard POST /keys with an access level named after an inherited property', () => {
  let cloud: RunningCloud;
  before(async () => {
    cloud = await startTestCloud({ env: { CLOUD_SIGNIN_RATE_LIMIT: 'off', CLOUD_SIGNUP_RATE_LIMIT: 'off' } });
  });
  after(async () => cloud?.stop());

  test('constructor, __proto__ and toString are refused with 400 and no key is issued; read still issues a read key', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    const keyCount = async () => (await cloud.database.db.selectFrom('cloud_api_keys').select('prefix').where('merchant_id', '=', merchant.merchant_id).execute()).length;
    for (const access of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const page = await (await open(cloud.url, '/dashboard/keys', token)).text();
      const response = await postForm(cloud.url, '/dashboard/keys', token, page, { label: 'probe', access });
      const html = await response.text();
      assert.equal(response.status, 400, `${access}: ${response.status}`);
      assert.match(html, /Choose one of the access levels offered\. No key was issued\./);
      assert.equal(await keyCount(), 1, `${access}: no key issued`);
    }
    const page = await (await open(cloud.url, '/dashboard/keys', token)).text();
    const response = await postForm(cloud.url, '/dashboard/keys', token, page, { label: 'reader', access: 'read' });
    assert.equal(response.status, 200);
    const scopes = await cloud.database.db.selectFrom('cloud_api_keys').select('scopes').where('merchant_id', '=', merchant.merchant_id).where('label', '=', 'reader').executeTakeFirstOrThrow();
    assert.equal(scopes.scopes, 'invoices:read');
  });
});
