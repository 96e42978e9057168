/**
 * Fair shares on Cloud: Free accounts are free and instant to make, so however many of them fill
 * their caps, each instance keeps the reserve a paying merchant needs, of its MCP sessions (2025
 * era), its 2026-07-28 `subscriptions/listen` streams and its checkout event streams; and the x402
 * budget, counted in the database every instance shares, is shared the same way. Two real Cloud
 * instances on one database (SQLite file, Postgres), over HTTP, with the SDK's client for a session.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases, type CreatedDatabase } from '../helpers/databases.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';
import { messageOf, postModern } from '../helpers/modern-mcp.ts';

const FREE_ACCOUNTS = 50;
/** Each instance's total of every resource, and the part kept from Free plans (25 %: 10). */
const TOTAL = 40;
const RESERVE_PERCENT = 25;
/** What Free accounts hold together: the total less the reserve (30), plus half the reserve (5) for accounts holding none yet. */
const FREE_HOLD = 35;
const FREE_CAP = 2;
const PRO_CAP = 10;

const ENV = {
  MCP_MAX_SESSIONS: String(TOTAL),
  MCP_MAX_LISTEN_STREAMS: String(TOTAL),
  CHECKOUT_STREAMS_MAX: String(TOTAL),
  CLOUD_FAIR_SHARE_RESERVE: String(RESERVE_PERCENT),
  CLOUD_MCP_SESSIONS_PER_PLAN: `free:${FREE_CAP},pro:${PRO_CAP}`,
  CLOUD_CHECKOUT_STREAMS_PER_PLAN: `free:${FREE_CAP},pro:${PRO_CAP}`,
  // Everyone connects from 127.0.0.1 here: the per-address bounds are other tests'.
  CHECKOUT_STREAMS_PER_CLIENT: '10000',
  MCP_INITIALIZE_RATE_LIMIT: 'off',
  CLOUD_SIGNUP_RATE_LIMIT: 'off',
  CLOUD_INVOICE_RATE_LIMIT: 'off',
};

interface Merchant {
  key: Record<string, string>;
  merchantId: string;
  invoiceId: string;
}

/** An answer as the test judges it: admitted (held open when a stream), or the refusal's envelope. */
interface Answer {
  status: number;
  code?: string;
  message?: string;
  retryAfter: string | null;
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fair-shares', version: '1' } } });

async function answerOf(response: Response): Promise<Answer> {
  const retryAfter = response.headers.get('retry-after');
  if (response.ok) return { status: response.status, retryAfter };
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: error.code, message: error.message, retryAfter };
}

/** Streams the test holds open, closed at its end. */
function openStreams() {
  // The responses too: fetch cancels the body of a response collected as garbage, which would end its stream.
  const held: { controller: AbortController; response: Response }[] = [];
  return {
    /** Starts a request with a signal the test aborts at the end; an admitted stream is left open. */
    async open(start: (signal: AbortSignal) => Promise<Response>): Promise<Response> {
      const controller = new AbortController();
      const response = await start(controller.signal);
      if (response.ok) held.push({ controller, response });
      return response;
    },
    closeAll: () => held.splice(0).forEach(({ controller }) => controller.abort()),
  };
}

const initialize = async (cloud: RunningCloud, merchant: Merchant) => {
  const response = await fetch(`${cloud.url}/api/v1/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...merchant.key }, body: INITIALIZE });
  const answer = await answerOf(response);
  if (response.ok) await response.text();
  return answer;
};

/** A 2026-07-28 listen stream of `merchant`, held open until the test ends. */
const listenOn = (cloud: RunningCloud, merchant: Merchant, streams: ReturnType<typeof openStreams>) =>
  streams.open((signal) => postModern(`${cloud.url}/api/v1/mcp`, merchant.key, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { signal }));

/** One merchant's ways to take a slot of each resource on `cloud`. */
function resources(cloud: RunningCloud, streams: ReturnType<typeof openStreams>) {
  return {
    sessions: (merchant: Merchant) => initialize(cloud, merchant),
    listen: async (merchant: Merchant) => answerOf(await listenOn(cloud, merchant, streams)),
    checkout: async (merchant: Merchant) => answerOf(await streams.open((signal) => fetch(`${cloud.url}/api/v1/checkout/${merchant.invoiceId}/events`, { signal }))),
  };
}

async function signUp(cloud: RunningCloud): Promise<Merchant> {
  const signed = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
  const key = { 'x-service-api-key': signed.api_key };
  const invoice = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 10_000 }, key);
  assert.equal(invoice.status, 201, invoice.text);
  return { key, merchantId: signed.merchant_id, invoiceId: invoice.json.invoice_id };
}

async function makePro(cloud: RunningCloud, merchant: Merchant) {
  await cloud.database.db.updateTable('cloud_merchants').set({ plan: 'pro', plan_expires_at: Date.now() + 86_400_000 }).where('merchant_id', '=', merchant.merchantId).execute();
}

/** Every refusal of a Free account: 429 with its code and Retry-After, naming the plan's cap or the Free plans' share. */
function assertFreeRefusals(answers: Answer[], code: string, capSetting: string, where: string) {
  const refused = answers.filter((answer) => answer.status !== 200);
  assert.equal(answers.length - refused.length, FREE_HOLD, `${where}: Free accounts hold the total less half the reserve`);
  const reasons = new Set<string>();
  for (const answer of refused) {
    assert.equal(answer.status, 429, `${where}: ${JSON.stringify(answer)}`);
    assert.equal(answer.code, code, where);
    assert.ok(Number(answer.retryAfter) >= 1, `${where}: Retry-After ${answer.retryAfter}`);
    if (answer.message!.includes(`(${capSetting} free=${FREE_CAP})`)) reasons.add('plan cap');
    else if (answer.message!.includes("The free plans' share of this instance's") && answer.message!.includes('CLOUD_FAIR_SHARE_RESERVE')) reasons.add('free share');
    else assert.fail(`${where}: the refusal names no cap: ${answer.message}`);
  }
  assert.deepEqual([...reasons].sort(), ['free share', 'plan cap'], `${where}: both caps were met`);
}

/** Two Cloud instances on one fresh database, stopped (and the database dropped) after `run`. */
async function withTwoInstances(kind: (typeof testDatabases)[number], env: Record<string, string>, run: (clouds: [RunningCloud, RunningCloud], database: CreatedDatabase) => Promise<void>) {
  const database = await kind.create();
  const one = await startTestCloud({ env: { ...env, DATABASE_URL: database.url } });
  const two = await startTestCloud({ env: { ...env, DATABASE_URL: database.url } });
  try {
    await run([one, two], database);
  } finally {
    await one.stop();
    await two.stop();
    await database.drop();
  }
}

for (const kind of testDatabases) {
  describe(`fair shares on Cloud, two instances on one ${kind.name} database`, { skip: kind.skip }, () => {
    it('50 Free accounts fill what Free may hold of sessions, listen streams and checkout streams on both instances; a Pro merchant still opens each on each', async () => {
      await withTwoInstances(kind, ENV, async (clouds) => {
        const free: Merchant[] = [];
        for (let i = 0; i < FREE_ACCOUNTS; i++) free.push(await signUp(clouds[i % 2]!));
        const pro = await signUp(clouds[0]);
        await makePro(clouds[0], pro);
        const streams = openStreams();
        const clients: Client[] = [];
        try {
          for (const [n, cloud] of clouds.entries()) {
            const take = resources(cloud, streams);
            // Every Free account tries one more of each than its plan allows.
            const answers = { sessions: [] as Answer[], listen: [] as Answer[], checkout: [] as Answer[] };
            for (const merchant of free) {
              for (let i = 0; i <= FREE_CAP; i++) {
                answers.sessions.push(await take.sessions(merchant));
                answers.listen.push(await take.listen(merchant));
                answers.checkout.push(await take.checkout(merchant));
              }
            }
            assertFreeRefusals(answers.sessions, 'too_many_sessions', 'CLOUD_MCP_SESSIONS_PER_PLAN', `instance ${n + 1}, MCP sessions`);
            assertFreeRefusals(answers.listen, 'too_many_sessions', 'CLOUD_MCP_SESSIONS_PER_PLAN', `instance ${n + 1}, listen streams`);
            assertFreeRefusals(answers.checkout, 'too_many_streams', 'CLOUD_CHECKOUT_STREAMS_PER_PLAN', `instance ${n + 1}, checkout streams`);

            // The Pro merchant: a session through the SDK's client that works, then the rest of the instance.
            const client = new Client({ name: 'fair-shares-pro', version: '1.0.0' });
            await client.connect(new StreamableHTTPClientTransport(new URL(`${cloud.url}/api/v1/mcp`), { requestInit: { headers: pro.key } }));
            clients.push(client);
            assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'list_invoices'), `instance ${n + 1}: the Pro session works`);
            for (let i = 1; i < TOTAL - FREE_HOLD; i++) assert.equal((await take.sessions(pro)).status, 200, `instance ${n + 1}: Pro session ${i + 1}`);
            const sessionsFull = await take.sessions(pro);
            assert.deepEqual([sessionsFull.status, sessionsFull.code], [503, 'capacity'], `instance ${n + 1}: then the instance is full, for everyone alike`);

            for (let i = 0; i < TOTAL - FREE_HOLD; i++) {
              const stream = await listenOn(cloud, pro, streams);
              assert.equal(stream.status, 200, `instance ${n + 1}: Pro listen stream ${i + 1}`);
              assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
            }
            // Past the instance's total the SDK refuses in-band, as it always has.
            const listenFull = await postModern(`${cloud.url}/api/v1/mcp`, pro.key, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
            assert.equal((await messageOf(listenFull)).error?.code, -32603);

            for (let i = 0; i < TOTAL - FREE_HOLD; i++) {
              const stream = await take.checkout(pro);
              assert.equal(stream.status, 200, `instance ${n + 1}: Pro checkout stream ${i + 1}`);
            }
            const checkoutFull = await take.checkout(pro);
            assert.deepEqual([checkoutFull.status, checkoutFull.code], [503, 'capacity']);
          }
        } finally {
          streams.closeAll();
          await Promise.all(clients.map((client) => client.close()));
        }
      });
    });

    it('the x402 budget across both instances: each merchant its plan\'s share, Free accounts together the budget less the reserve, a Pro merchant its own', async () => {
      const OVERALL = 40;
      const env = { ...ENV, X402_RATE_LIMIT: `10000,${OVERALL}`, CLOUD_X402_RATE_PER_PLAN: `free:${FREE_CAP},pro:${PRO_CAP}` };
      await withTwoInstances(kind, env, async (clouds) => {
        const free: Merchant[] = [];
        for (let i = 0; i < FREE_ACCOUNTS; i++) free.push(await signUp(clouds[i % 2]!));
        const [pro, otherPro] = [await signUp(clouds[0]), await signUp(clouds[1])];
        await makePro(clouds[0], pro);
        await makePro(clouds[0], otherPro);
        let request = 0;
        // Alternately on each instance: the windows are the database's. A Bitcoin invoice's x402 URL
        // answers 409 x402_unavailable, an answer like any other for the budget.
        const x402 = async (merchant: Merchant) => answerOf(await fetch(`${clouds[request++ % 2]!.url}/api/v1/x402/${merchant.invoiceId}`));

        const answers: Answer[] = [];
        for (const merchant of free) for (let i = 0; i <= FREE_CAP; i++) answers.push(await x402(merchant));
        const answered = answers.filter((answer) => answer.status === 409);
        const freeShare = OVERALL - (OVERALL * RESERVE_PERCENT) / 100;
        assert.equal(answered.length, freeShare, 'Free accounts together: the budget less the reserve');
        const refused = answers.filter((answer) => answer.status === 429);
        assert.equal(refused.length + answered.length, answers.length);
        for (const answer of refused) {
          assert.equal(answer.code, 'rate_limited');
          assert.ok(Number(answer.retryAfter) >= 1);
          assert.match(answer.message!, /CLOUD_X402_RATE_PER_PLAN free=2|The free plans' share of this server's x402 requests \(30 a minute/);
        }
        assert.ok(refused.some((answer) => answer.message!.includes('free=2')) && refused.some((answer) => answer.message!.includes("free plans' share")));

        // The Pro merchant's payers are answered up to its plan's share, which is within the reserve.
        for (let i = 0; i < PRO_CAP; i++) assert.equal((await x402(pro)).status, 409, `Pro request ${i + 1}`);
        const proPast = await x402(pro);
        assert.equal(proPast.status, 429);
        assert.match(proPast.message!, /CLOUD_X402_RATE_PER_PLAN pro=10/);
        // Now the minute's whole budget is spent: for every merchant, paying or not.
        const spent = await x402(otherPro);
        assert.equal(spent.status, 429);
        assert.match(spent.message!, /X402_RATE_LIMIT, 40 a minute/);
        const unknown = await fetch(`${clouds[0].url}/api/v1/x402/inv_none_such`);
        assert.equal(unknown.status, 404, 'an unknown invoice is not found: no merchant\'s share is spent');
      });
    });
  });
}
