import { defaultChains } from '../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startListener } from '../../listener/app.ts';
import { manualClock } from '../../core/clock.ts';
import { loadConfig } from '../../listener/config.ts';
import { silentLogger } from '../../core/log.ts';
import { stallAfterMs } from '../../core/watch-progress.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../sandbox/local-chain-server.ts';
import { CloudHealth, Health } from '../../shared/index.ts';
import { ACCOUNT_XPUB, startEvmTestChain } from '../helpers/evm-chain.ts';
import { startRpcProxy } from '../helpers/rpc-proxy.ts';
import { REGTEST_TPUB, testAccountKey } from '../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { postJson, tempSqliteUrl } from '../helpers/listener.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

/** The network seen by a watcher: real requests to the local chain, held back while `holding`. */
function heldFetch() {
  let holding = false;
  const held: Array<() => void> = [];
  return {
    fetch: (async (input, init) => {
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      return fetch(input, init);
    }) as typeof fetch,
    hold: () => (holding = true),
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    held: () => held.length,
  };
}

const POLL_MS = 100;

test('/health: a Base watcher stuck on a source that holds its answers is "stalled" (ok false), one whose source is down is "failing", and both clear when the source answers', { timeout: 120_000 }, async () => {
  const chain = await startEvmTestChain();
  const proxy = await startRpcProxy(chain.anvil.url);
  const clock = manualClock(Date.now());
  const listener = await startListener(
    loadConfig({
      PORT: '0',
      DATABASE_URL: chain.databaseUrl,
      MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
      MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address}`,
      BASE_RPC_URL: proxy.url, BASE_MIN_SOURCES: '1',
      BASE_CHAIN_ID: String(chain.anvil.chainId),
    }, defaultChains),
    { clock, logger: silentLogger, tuning: { evm: { pollIntervalMs: POLL_MS } } },
  );
  const health = async () => {
    const response = await fetch(`${listener.url}/health`);
    assert.equal(response.status, 200, 'GET /health answers 200 whatever it says (spec)');
    return Health.parse(await response.json());
  };
  const until = (what: string, done: (h: Health) => boolean) => waitForWatcher(what, health, done, { watcher: health, timeoutMs: 60_000 });
  try {
    const first = await until('a first successful pass', (h) => h.base?.progress?.last_success_at != null);
    assert.equal(first.ok, true);
    assert.deepEqual(first.problems, []);

    proxy.mode = { kind: 'hold' };
    const stuck = await until('a pass blocked on the held source', (h) => h.base?.progress?.step === 'asking the RPC sources for the head');
    assert.equal(stuck.ok, true, 'a step under way for less than the limit is no problem');
    clock.advance(stallAfterMs(POLL_MS) + 1_000);
    const stalled = await health();
    assert.equal(stalled.ok, false);
    assert.equal(stalled.problems?.length, 1);
    assert.equal(stalled.problems![0].component, 'base');
    assert.equal(stalled.problems![0].kind, 'stalled');
    assert.match(stalled.problems![0].reason, /^step "asking the RPC sources for the head" under way for 12\d s$/);
    assert.equal(stalled.problems![0].since, stuck.base!.progress!.step_since);

    proxy.release();
    const resumed = await until('a pass finished after the source answered', (h) => Date.parse(h.base?.progress?.last_success_at ?? '') === clock.now());
    assert.equal(resumed.ok, true);
    assert.deepEqual(resumed.problems, []);

    proxy.mode = { kind: 'down' };
    const failed = await until('a failed pass', (h) => h.base?.progress?.failing_since != null);
    assert.equal(failed.ok, true, 'failing for less than the limit is no problem');
    assert.match(failed.base!.progress!.last_error!, /no Base RPC source answers/);
    clock.advance(stallAfterMs(POLL_MS) + 1_000);
    // Right after the jump the step under way looks old too; the next step shows what it is.
    const failing = await until('the watcher reported failing', (h) => h.problems?.[0]?.kind === 'failing');
    assert.equal(failing.ok, false);
    assert.equal(failing.problems![0].since, failed.base!.progress!.failing_since);
    assert.match(failing.problems![0].reason, /^every pass fails: no Base RPC source answers/);

    proxy.mode = { kind: 'pass' };
    const recovered = await until('recovery after the source returns', (h) => h.ok);
    assert.equal(recovered.base!.progress!.failing_since, null);
    assert.equal(recovered.base!.progress!.last_error, null);
  } finally {
    proxy.release();
    await listener.stop();
    await proxy.close();
    await chain.close();
  }
});

test('waitForWatcher fails with the watcher state, not a bare timeout', async () => {
  await assert.rejects(
    waitForWatcher('an invoice confirmed', () => 'pending', (status) => status === 'confirmed', {
      watcher: () => ({ step: 'following blocks', last_block_height: 7 }),
      timeoutMs: 100,
    }),
    (error: Error) => /an invoice confirmed: not reached after 100 ms/.test(error.message) && /"pending"/.test(error.message) && /"step": "following blocks"/.test(error.message),
  );
});

test('/health: a Bitcoin watcher whose source holds its answers is "stalled"; stopped during that pass, it stops when the pass ends, not a poll interval later', { timeout: 60_000 }, async () => {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const server = await startLocalChainServer(new LocalBtcChain({ now: clock.now }));
  const network = heldFetch();
  const pollIntervalMs = 3_600_000;
  network.hold();
  const listener = await startListener(
    loadConfig({ PORT: '0', DATABASE_URL: tempSqliteUrl(), MERCHANT_BTC_XPUB: REGTEST_TPUB, BTC_NETWORK: 'regtest', BTC_ESPLORA_URL: server.esploraUrl }, defaultChains),
    { clock, logger: silentLogger, fetch: network.fetch, tuning: { bitcoin: { pollIntervalMs: pollIntervalMs } } },
  );
  let stopped = false;
  try {
    const health = async () => Health.parse(await (await fetch(`${listener.url}/health`)).json());
    const stuck = await waitForWatcher('the first pass blocked on the held source', health, (h) => h.btc_progress?.step === 'following blocks' && network.held() > 0, {
      watcher: health,
    });
    assert.equal(stuck.ok, true);
    clock.advance(stallAfterMs(pollIntervalMs, 60_000) + 1_000);
    const stalled = await health();
    assert.equal(stalled.ok, false);
    assert.deepEqual(
      stalled.problems?.map((p) => [p.component, p.kind, p.since]),
      [['btc', 'stalled', stuck.btc_progress!.step_since]],
    );
    assert.match(stalled.problems![0].reason, /^step "following blocks" under way for \d+ s$/);

    const stopping = listener.stop().then(() => (stopped = true));
    network.release();
    const limit = new Promise((resolve) => setTimeout(resolve, 10_000).unref());
    await Promise.race([stopping, limit]);
    assert.equal(stopped, true, 'stop() returned once the pass under way ended');
  } finally {
    network.release();
    if (!stopped) await listener.stop();
    await server.close();
  }
});

test("Cloud /api/v1/health: a merchant's Bitcoin watcher failing against a down source turns ok false, counted per chain without naming the merchant; ok again when the source returns", { timeout: 120_000 }, async () => {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const server = await startLocalChainServer(new LocalBtcChain({ now: clock.now }));
  const cloud = await startTestCloud({
    env: { BTC_ESPLORA_URL: server.esploraUrl, BTC_ESPLORA_NETWORK: 'regtest', CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off' },
    deps: { clock, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 20 } }, refreshMs: 20 } },
  });
  try {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(7) });
    // The Bitcoin watcher of a source starts with the first invoice of its networks.
    const invoice = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 10_000 }, { 'X-Service-Api-Key': merchant.api_key });
    assert.equal(invoice.status, 201, invoice.text);
    // One Bitcoin watcher for every merchant of the Esplora URL, keyed by the networks it serves.
    const key = 'btc:mainnet,regtest,signet,testnet';
    const progress = () => (cloud.watcherStates()[key] as { btc_progress?: { last_success_at: string | null; failing_since: string | null } } | undefined)?.btc_progress;
    const health = async () => {
      const response = await fetch(`${cloud.url}/api/v1/health`);
      assert.equal(response.status, 200);
      return CloudHealth.parse(await response.json());
    };
    const until = <T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean) =>
      waitForWatcher(what, read, done, { watcher: () => cloud.watcherStates(), timeoutMs: 60_000 });

    await until("the merchant's watcher passed once", progress, (p) => p?.last_success_at != null);
    assert.deepEqual(await health().then((h) => [h.ok, h.problems]), [true, []]);

    server.setDown(true);
    clock.advance(2_001); // past the shared source's reuse window: the next pass asks the source
    const failed = await until('a failed pass', progress, (p) => p?.failing_since != null);
    clock.advance(stallAfterMs(20, 60_000) + 1_000);
    const failing = await until('/api/v1/health reports the failing watcher', health, (h) => h.problems?.[0]?.kind === 'failing');
    assert.equal(failing.ok, false);
    assert.equal(failing.problems!.length, 1);
    assert.equal(failing.problems![0].component, 'btc');
    assert.equal(failing.problems![0].since, failed!.failing_since);
    assert.match(failing.problems![0].reason, /^1 of 1 btc watchers \(all merchants\); first: every pass fails: /);
    assert.doesNotMatch(JSON.stringify(failing), new RegExp(merchant.merchant_id), 'a public route names no merchant');

    server.setDown(false);
    clock.advance(2_001);
    const back = await until('/api/v1/health ok again', health, (h) => h.ok);
    assert.deepEqual(back.problems, []);
  } finally {
    await cloud.stop();
    await server.close();
  }
});
