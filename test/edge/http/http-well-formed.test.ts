import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningListener } from '../../../listener/app.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';
import { rawExchange } from '../../helpers/raw-http.ts';
import { stripeEnv } from '../../helpers/stripe-events.ts';

/** A JSON body spelling an unpaired surrogate as an escape: valid JSON, not storable text. */
const LONE_SURROGATE_MEMO = '{"chain":"btc","amount_sats":1000,"memo":"a\\ud800b"}';
/** The UTF-8 bytes of the body with 0xff in the memo: never valid UTF-8. */
const INVALID_UTF8_BODY = Buffer.concat([Buffer.from('{"chain":"btc","amount_sats":1000,"memo":"a'), Buffer.from([0xff]), Buffer.from('b"}')]);

async function postBytes(url: string, body: Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) };
}

function assertEnvelopeAnswer(raw: string, status: number, code: string) {
  const [head, body] = raw.split('\r\n\r\n');
  assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `));
  assert.match(head, /\r\nContent-Type: application\/json/i);
  assert.match(head, /\r\nConnection: close/i);
  assert.equal(JSON.parse(body).error.code, code);
}

describe('well-formed Unicode and HTTP at the edge: listener', () => {
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener();
  });
  after(() => listener.stop());

  it('a JSON \\ud800 escape in any string is 400 bad_body, and the next invoice takes child index 0', async () => {
    const refused = await postJson(`${listener.url}/invoice`, LONE_SURROGATE_MEMO);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.code, 'bad_body');
    const inKey = await postJson(`${listener.url}/invoice`, '{"chain":"btc","amount_sats":1000,"x\\udc00":1}');
    assert.equal(inKey.json.error.code, 'bad_body');
    const paired = await postJson(`${listener.url}/invoice`, '{"chain":"btc","amount_sats":1000,"memo":"\\ud83d\\ude00"}');
    assert.equal(paired.status, 201, 'a surrogate pair is one well-formed character');
    assert.equal(paired.json.memo, '😀');
    assert.equal(paired.json.child_index, 0);
  });

  it('a body whose bytes are not UTF-8 is 400 bad_body, never stored with U+FFFD', async () => {
    const refused = await postBytes(`${listener.url}/invoice`, INVALID_UTF8_BODY);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.code, 'bad_body');
  });

  it('a path or query whose escapes are not UTF-8 is 400 bad_body', async () => {
    for (const path of ['/invoice/%ED%A0%80', '/invoice/%ff', '/checkout/a%c3', '/health?x=%ff']) {
      const answer = await getJson(`${listener.url}${path}`);
      assert.equal(answer.status, 400, path);
      assert.equal(answer.json.error.code, 'bad_body', path);
    }
    assert.equal((await getJson(`${listener.url}/invoice/%C3%A9`)).json.error.code, 'not_found', 'well-formed escapes go through');
  });

  it('a 20,000-character invoice id gets 431 headers_too_large in the envelope, with Connection: close', async () => {
    const response = await fetch(`${listener.url}/invoice/${'a'.repeat(20_000)}`);
    assert.equal(response.status, 431);
    assert.equal(response.headers.get('connection'), 'close');
    assert.deepEqual(await response.json(), { error: { code: 'headers_too_large', message: 'The request line and headers exceed 16 KB.' } });
    assertEnvelopeAnswer(await rawExchange(listener.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large');
  });

  it('a request that is not HTTP, or HTTP/1.1 without Host, gets 400 bad_body in the envelope instead of a bare status line', async () => {
    assertEnvelopeAnswer(await rawExchange(listener.url, 'HELLO\r\n\r\n'), 400, 'bad_body');
    assertEnvelopeAnswer(await rawExchange(listener.url, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'), 400, 'bad_body');
    assertEnvelopeAnswer(await rawExchange(listener.url, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'bad_body');
    assert.match(await rawExchange(listener.url, 'GET /health HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /, 'HTTP/1.0 needs no Host');
  });
});

describe('well-formed Unicode at the edge: Cloud', () => {
  let cloud: RunningCloud;
  let apiKey: string;
  const api = (path: string) => `${cloud.url}/api/v1${path}`;
  const usage = async () => (await getJson(api('/me'), { 'X-Service-Api-Key': apiKey })).json.usage.invoices_this_month;

  before(async () => {
    cloud = await startTestCloud({ env: { CLOUD_SIGNUP_RATE_LIMIT: '1000,1000' } });
    apiKey = (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key;
  });
  after(() => cloud.stop());

  it('invoice, signup, webhook and billing bodies with an unpaired surrogate are 400 bad_body; usage is unchanged', async () => {
    const key = { 'X-Service-Api-Key': apiKey };
    const refusals = [
      await postJson(api('/invoice'), LONE_SURROGATE_MEMO, key),
      await postBytes(api('/invoice'), INVALID_UTF8_BODY, key),
      await postJson(api('/signup'), '{"email":"x@example.com","shop_name":"Sh\\udfffop","btc_xpub":"' + BIP84_ZPUB + '"}'),
      await postJson(api('/webhook'), '{"webhook_url":"https://example.com/\\ud800"}', key),
      await postJson(api('/billing/checkout'), '{"plan":"\\ud800"}', key),
    ];
    for (const refused of refusals) {
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.code, 'bad_body');
    }
    assert.equal(await usage(), 0);
    const created = await postJson(api('/invoice'), { chain: 'btc', amount_sats: 1000 }, key);
    assert.equal(created.status, 201);
    assert.equal(await usage(), 1);
  });

  it('a query string or id whose escapes are not UTF-8 is 400 bad_body', async () => {
    for (const path of ['/invoices?limit=%ff', '/invoice/%ED%A0%80', '/checkout/%e2%82']) {
      const answer = await getJson(api(path), { 'X-Service-Api-Key': apiKey });
      assert.equal(answer.status, 400, path);
      assert.equal(answer.json.error.code, 'bad_body', path);
    }
  });

  it('a dashboard form whose escapes are not UTF-8 is refused with 400 bad_body', async () => {
    const response = await fetch(`${cloud.url}/dashboard/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=abc&api_key=%ED%A0%80',
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /bad_body/);
  });

  it('a Stripe webhook body that is not UTF-8 is 400 bad_body before any signature check', async () => {
    const billing = await startTestCloud({ env: stripeEnv });
    try {
      const refused = await postBytes(`${billing.url}/api/v1/billing/stripe-webhook`, INVALID_UTF8_BODY, { 'Stripe-Signature': 't=1,v1=00' });
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.code, 'bad_body');
      assert.match(refused.json.error.message, /UTF-8/, 'refused for its bytes, not for its signature');
    } finally {
      await billing.stop();
    }
  });

  it('an oversized request line on Cloud gets 431 headers_too_large in the envelope', async () => {
    const response = await fetch(api(`/checkout/${'c'.repeat(20_000)}`));
    assert.equal(response.status, 431);
    assert.equal((await response.json()).error.code, 'headers_too_large');
  });
});
