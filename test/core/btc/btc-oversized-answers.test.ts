import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ADDRESS_PAGE_BYTES, MAX_RAW_BLOCK_BYTES } from '../../../core/btc/answer-caps.ts';
import { createBitcoinCoreSource } from '../../../core/btc/bitcoin-core-source.ts';
import { ChainSourceError, ChainSourceInvalidData } from '../../../core/btc/chain-source.ts';
import { createEsploraSource } from '../../../core/btc/esplora-source.ts';
import { startBtcWatchContext } from '../../helpers/btc-chain.ts';
import { HUGE_BYTES, startFloodServer, type Flood } from '../../helpers/flood.ts';
import { startLyingEsplora } from '../../helpers/lying-esplora.ts';

// Oversized answers from Bitcoin sources: a 100 MB body or an endless stream is cut at its cap and
// counts as invalid data (the source is set aside); headers then silence fail at the time cap.

const HASH = 'ab'.repeat(32);
const TIMEOUT_MS = 800;
// Loopback socket buffers let a few MB through before the server sees the client stop reading.
const SLACK = 16 * 1024 * 1024;

async function expectBounded(flood: Flood, cap: number, ask: (url: string) => Promise<unknown>) {
  const server = await startFloodServer();
  server.flood = flood;
  try {
    const started = Date.now();
    const error = await ask(server.url).catch((e: unknown) => e);
    const label = new URL(server.url).origin;
    if (flood === 'silent') {
      assert.ok(error instanceof ChainSourceError && !(error instanceof ChainSourceInvalidData), String(error));
      assert.match(error.message, new RegExp(`${label} did not complete its answer to .* within ${TIMEOUT_MS / 1000} s`));
      assert.ok(Date.now() - started < TIMEOUT_MS + 2_000, `failed after ${Date.now() - started} ms`);
    } else {
      assert.ok(error instanceof ChainSourceInvalidData, String(error));
      assert.match(error.message, new RegExp(`${label} answered more than ${cap} bytes to `));
      await server.hungUp();
      assert.ok(server.sentBytes < cap + SLACK && server.sentBytes < HUGE_BYTES / 2, `server sent ${server.sentBytes} bytes`);
    }
  } finally {
    await server.close();
  }
}

for (const flood of ['huge', 'endless', 'silent'] as Flood[]) {
  // Silence is cut at TIMEOUT_MS; a flood gets time enough to reach the size cap first.
  const timeoutMs = flood === 'silent' ? TIMEOUT_MS : 15_000;
  test(`Esplora (${flood}): a raw block and an address page are read within their caps`, async () => {
    const esplora = (url: string) => createEsploraSource({ baseUrl: `${url}/api`, fetch, timeoutMs });
    await expectBounded(flood, MAX_RAW_BLOCK_BYTES, (url) => esplora(url).block(HASH, 1));
    await expectBounded(flood, MAX_ADDRESS_PAGE_BYTES, (url) => esplora(url).addressTxs('bcrt1qexample', 'mempool'));
  });

  test(`Bitcoin Core RPC (${flood}): a block in hex is read within its cap`, async () => {
    const core = (url: string) => createBitcoinCoreSource({ url: `${url.replace('http://', 'http://user:secret@')}/`, fetch, timeoutMs });
    await expectBounded(flood, 2 * MAX_RAW_BLOCK_BYTES + 1_024, async (url) => {
      const error = await core(url).block(HASH, 1).catch((e: unknown) => e);
      assert.doesNotMatch(String(error), /secret/, 'the credentials stay out of the message');
      throw error;
    });
  });
}

test('an Esplora answering 100 MB to everything, listed first beside an honest one: the payment confirms, the liar is set aside and named on /health', async () => {
  const liar = await startLyingEsplora();
  const ctx = await startBtcWatchContext('esplora');
  try {
    liar.target = ctx.server.esploraUrl;
    await ctx.listener.stop();
    await ctx.restart({ BTC_ESPLORA_URL: `${liar.url},${ctx.server.esploraUrl}` });
    await ctx.sync();
    liar.lie = async () => ({ flood: 'huge' });
    const rssBefore = process.memoryUsage().rss;
    const invoice = await ctx.createInvoice(25_000);
    await ctx.sync();
    ctx.chain.pay([{ address: invoice.receive_address, value: 25_000n }]);
    ctx.chain.mine(3);
    await ctx.sync();
    await ctx.sync();
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
    const health = (await (await fetch(`${ctx.listener.url}/health`)).json()) as {
      problems: { kind: string; reason: string }[];
      btc_headers: { sources: { source: string; state: string; problem: string | null }[] };
    };
    const liarLabel = new URL(liar.url).origin;
    assert.deepEqual(
      health.btc_headers.sources.map((s) => [s.source, s.state]),
      [
        [liarLabel, 'invalid'],
        [new URL(ctx.server.esploraUrl).origin, 'ok'],
      ],
    );
    assert.match(health.btc_headers.sources[0].problem!, new RegExp(`${liarLabel} answered more than \\d+ bytes to GET `));
    assert.ok(health.problems.some((p) => p.reason.includes(liarLabel)), JSON.stringify(health.problems));
    console.log(`the liar wrote ${liar.floodedBytes} bytes in all; rss grew ${process.memoryUsage().rss - rssBefore} bytes`);
    assert.ok(liar.floodedBytes < HUGE_BYTES, 'no flood was read whole');
  } finally {
    await ctx.close();
    await liar.close();
  }
});
