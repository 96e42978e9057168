import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bitsToTarget } from '../../../core/btc/header-chain.ts';
import { headerFromEsploraJson } from '../../../core/btc/header-source.ts';
import { assembleBlock } from '../../../sandbox/block-builder.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { headerHash } from '../../helpers/headers.ts';
import { startLyingEsplora, type LyingEsplora } from '../../helpers/lying-esplora.ts';

// Esplora sources that lie, against the local regtest chain: a payment confirms only on blocks whose
// headers carry proof of work and link to the verified chain, and /health names the liar.

const REGTEST_TARGET = bitsToTarget(0x207fffff)!;

interface HealthBody {
  ok: boolean;
  problems: { component: string; kind: string; reason: string }[];
  btc_headers?: { height: number | null; synced: boolean; sources: { source: string; state: string; tip_height: number | null; problem: string | null }[] };
}

async function health(ctx: BtcWatchContext): Promise<HealthBody> {
  return (await fetch(`${ctx.listener.url}/health`)).json() as Promise<HealthBody>;
}

async function rejectionsCounted(ctx: BtcWatchContext): Promise<number> {
  const text = await (await fetch(`${ctx.listener.url}/metrics`)).text();
  return [...text.matchAll(/^service_chain_source_rejected_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** The label /health gives a source: scheme, host and port. */
const labelOf = (url: string) => new URL(url).origin;

/** A context whose first Esplora source is `liar` (relaying the local chain until it lies), then the honest one. */
async function withLiarFirst(): Promise<{ ctx: BtcWatchContext; liar: LyingEsplora }> {
  const liar = await startLyingEsplora();
  const ctx = await startBtcWatchContext('esplora');
  liar.target = ctx.server.esploraUrl;
  await ctx.listener.stop();
  await ctx.restart({ BTC_ESPLORA_URL: `${liar.url},${ctx.server.esploraUrl}` });
  return { ctx, liar };
}

/** Pays a fresh invoice and mines `blocks` on top; returns the invoice. */
async function payAndMine(ctx: BtcWatchContext, blocks: number) {
  const invoice = await ctx.createInvoice(25_000);
  await ctx.sync();
  ctx.chain.pay([{ address: invoice.receive_address, value: 25_000n }]);
  ctx.chain.mine(blocks);
  await ctx.sync();
  return invoice;
}

test('a fabricated chain without proof of work never confirms a payment, and /health says which source and why', async () => {
  let fabricate = false;
  // The source's history is real; from the switch on it mines nothing: every new header misses its target.
  const unmined: typeof assembleBlock = (txs, prevHash, time) => {
    const block = assembleBlock(txs, prevHash, time);
    while (fabricate && block.checkProofOfWork()) block.nonce++;
    return block;
  };
  const ctx = await startBtcWatchContext('esplora', { assemble: unmined });
  try {
    await ctx.sync();
    assert.equal((await health(ctx)).ok, true);
    const verifiedTip = ctx.chain.tip.height;
    fabricate = true;
    const invoice = await ctx.createInvoice(25_000);
    ctx.chain.pay([{ address: invoice.receive_address, value: 25_000n }]);
    ctx.chain.mine(6);
    // The pass fails: its only source lied; then it is ignored for a while.
    await assert.rejects(ctx.sync(), /has a hash above its target \(no proof of work\)/);
    await assert.rejects(ctx.sync(), /no usable Bitcoin source: .* served an invalid header/);
    assert.notEqual((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
    const rows = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('invoice_id', '=', invoice.invoice_id).execute();
    assert.ok(rows.every((row) => row.status !== 'block'), 'no payment recorded in a fabricated block');
    const h = await health(ctx);
    assert.equal(h.ok, false);
    assert.equal(h.problems.length, 1);
    assert.equal(h.problems[0].kind, 'invalid-source');
    assert.match(h.problems[0].reason, new RegExp(`^${labelOf(ctx.server.esploraUrl)} served an invalid header: header [0-9a-f]{64} has a hash above its target \\(no proof of work\\)`));
    assert.equal(h.btc_headers!.height, verifiedTip, 'the verified chain stops where proof of work stops');
    assert.equal(h.btc_headers!.sources[0].state, 'invalid');
    assert.ok((await rejectionsCounted(ctx)) >= 1, 'counted in /metrics');
  } finally {
    await ctx.close();
  }
});

test('two sources that disagree: the one serving a tip without proof of work is named and ignored; the honest one confirms', async () => {
  const { ctx, liar } = await withLiarFirst();
  try {
    await ctx.sync();
    // From now on the liar claims a tip one block above the real one, with a header nobody mined.
    liar.lie = fabricatedTip(ctx.server.esploraUrl);
    const invoice = await payAndMine(ctx, 3);
    await ctx.sync();
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
    const h = await health(ctx);
    assert.equal(h.ok, false);
    assert.deepEqual(h.problems.map((p) => p.kind), ['invalid-source']);
    assert.match(h.problems[0].reason, new RegExp(`^${labelOf(liar.url)} served an invalid header: .*no proof of work`));
    assert.deepEqual(
      h.btc_headers!.sources.map((s) => [s.source, s.state]),
      [
        [labelOf(liar.url), 'invalid'],
        [labelOf(ctx.server.esploraUrl), 'ok'],
      ],
    );
  } finally {
    await ctx.close();
    await liar.close();
  }
});

test("a block body that is not the header's (another block's, or one output changed) is refused and its source named; the next source's confirms", async () => {
  for (const tamper of ['another block', 'an output changed'] as const) {
    const { ctx, liar } = await withLiarFirst();
    try {
      await ctx.sync();
      liar.lie = async (path, honest) => {
        const raw = /^\/block\/([0-9a-f]{64})\/raw$/.exec(path);
        if (!raw) return null;
        const block = ctx.chain.blockByHash(raw[1])!;
        if (tamper === 'another block') return { status: 200, body: Buffer.from(ctx.chain.blockAt(block.height - 1)!.raw) };
        const body = Buffer.from((await honest()).body);
        // The coinbase's first output value: header, tx count, version, segwit marker, one input (outpoint, script, sequence), output count.
        const scriptLength = body[80 + 1 + 4 + 2 + 1 + 36];
        body[80 + 1 + 4 + 2 + 1 + 36 + 1 + scriptLength + 4 + 1] ^= 1;
        return { status: 200, body };
      };
      const invoice = await payAndMine(ctx, 3);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'confirmed', tamper);
      const h = await health(ctx);
      assert.equal(h.ok, false, tamper);
      assert.match(
        h.problems[0].reason,
        new RegExp(`^${labelOf(liar.url)} served a block that does not match its verified header: .*(came back as|do not match its merkle root)`),
        tamper,
      );
    } finally {
      await ctx.close();
      await liar.close();
    }
  }
});

test('a source withholding the paying block is reported behind; the other source confirms the payment', async () => {
  const { ctx, liar } = await withLiarFirst();
  try {
    await ctx.sync();
    const frozen = ctx.chain.tip;
    // Its tip stays where it was: the blocks after it are withheld.
    liar.lie = async (path) => (path === '/blocks/tip/hash' ? { status: 200, body: Buffer.from(frozen.hash) } : null);
    const invoice = await payAndMine(ctx, 3);
    await ctx.sync();
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
    const h = await health(ctx);
    assert.deepEqual(
      h.btc_headers!.sources.map((s) => [s.state, s.tip_height]),
      [
        ['behind', frozen.height],
        ['ok', ctx.chain.tip.height],
      ],
    );
    assert.match(h.btc_headers!.sources[0].problem!, /^tip \d+ is behind the best verified tip \d+$/);
    assert.equal(h.ok, true, 'withholding cannot be proven wrong, only noticed');
  } finally {
    await ctx.close();
    await liar.close();
  }
});

for (const database of testDatabases) {
  test(`the verified header chain is stored (${database.name}): a reorg rewrites it, a restart reads no header again`, { skip: database.skip }, async () => {
    const created = await database.create();
    const ctx = await startBtcWatchContext('esplora', { databaseUrl: created.url });
    try {
      ctx.chain.mine(20);
      await ctx.sync();
      ctx.chain.reorg(3);
      await ctx.sync();
      const stored = await ctx.listener.database.db.selectFrom('btc_headers').select(['height', 'header']).orderBy('height').execute();
      assert.deepEqual(
        stored.map((row) => [row.height, Buffer.from(row.header).toString('hex')]),
        Array.from({ length: ctx.chain.tip.height + 1 }, (_, height) => [height, Buffer.from(ctx.chain.blockAt(height)!.raw.subarray(0, 80)).toString('hex')]),
        'the best chain from the genesis block, 80 bytes a block, the reorganised blocks replaced',
      );
      await ctx.listener.stop();
      const headerReads = () => [...ctx.server.requestsByRoute()].filter(([route]) => /^GET \/api\/blocks\/:n$|^GET \/api\/block\/:hash$/.test(route)).reduce((sum, [, n]) => sum + n, 0);
      const before = headerReads();
      await ctx.restart();
      await ctx.sync();
      assert.equal(headerReads() - before, 0);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal(headerReads() - before, 1, 'one header read for one new block');
    } finally {
      await ctx.close();
      await created.drop();
    }
  });
}

/** A lie: the tip is a header one above the real tip, linking to it, whose hash misses its target. */
function fabricatedTip(honestUrl: string) {
  let fake: { id: string; json: Record<string, unknown> } | null = null;
  return async (path: string) => {
    if (path === '/blocks/tip/hash') {
      const tipHash = await (await fetch(`${honestUrl}/blocks/tip/hash`)).text();
      const tip = (await (await fetch(`${honestUrl}/block/${tipHash}`)).json()) as Record<string, unknown>;
      const json: Record<string, unknown> = { ...tip, height: (tip.height as number) + 1, previousblockhash: tipHash, timestamp: (tip.timestamp as number) + 600 };
      for (let nonce = 0; ; nonce++) {
        json.nonce = nonce;
        const id = headerHash(headerFromEsploraJson(json).raw);
        if (BigInt(`0x${id}`) > REGTEST_TARGET) {
          fake = { id, json: { ...json, id } };
          break;
        }
      }
      return { status: 200, body: Buffer.from(fake.id) };
    }
    if (fake && path === `/block/${fake.id}`) return { status: 200, body: Buffer.from(JSON.stringify(fake.json)) };
    return null;
  };
}
