import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as bitcoin from 'bitcoinjs-lib';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { editAddressTxs, editRawTx, silentAboutMempool, startLyingEsplora, type Lie, type LyingEsplora } from '../../helpers/lying-esplora.ts';

// An Esplora that lies about unconfirmed payments, listed first or second, in both watch modes: a
// payment is credited only what its verified block proves, to the invoice whose address its bytes pay.

type Mode = 'address' | 'full';
type Position = 'first' | 'second';

const modeEnv: Record<Mode, Record<string, string>> = {
  // A third-party Esplora: only the open invoices' addresses are asked about (polled, no socket).
  address: { BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' },
  full: {},
};

interface Setup {
  ctx: BtcWatchContext;
  liar: LyingEsplora;
  mode: Mode;
}

/** A listener whose sources are the liar (relaying the local chain until it lies) and the honest local chain, in `position` order. */
async function withLiar(mode: Mode, position: Position, databaseUrl?: string): Promise<Setup> {
  const liar = await startLyingEsplora();
  const ctx = await startBtcWatchContext('esplora', { env: modeEnv[mode], databaseUrl });
  liar.target = ctx.server.esploraUrl;
  await ctx.listener.stop();
  const urls = position === 'first' ? [liar.url, ctx.server.esploraUrl] : [ctx.server.esploraUrl, liar.url];
  await ctx.restart({ BTC_ESPLORA_URL: urls.join(',') });
  await ctx.sync();
  return { ctx, liar, mode };
}

async function close({ ctx, liar }: Setup) {
  await ctx.close();
  await liar.close();
}

/** One pass that sees the mempool: in address mode a fresh invoice is first polled 10 s after its creation. */
async function syncSeeingMempool({ ctx }: Setup) {
  ctx.clock.advance(10_000);
  await ctx.sync();
}

const stored = async (ctx: BtcWatchContext, invoiceId: string) =>
  (await ctx.listener.database.db.selectFrom('btc_payments').select(['txid', 'vout', 'value_sats', 'status']).where('invoice_id', '=', invoiceId).orderBy('txid').execute()).map((r) => ({
    txid: r.txid,
    value: Number(r.value_sats),
    status: r.status,
  }));

async function overruled(ctx: BtcWatchContext, kind: string): Promise<number> {
  const text = await (await fetch(`${ctx.listener.url}/metrics`)).text();
  const line = new RegExp(`^service_unproven_payment_claims_total\\{chain="btc",kind="${kind}"\\} (\\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

async function rejected(ctx: BtcWatchContext, source: LyingEsplora, reason: string): Promise<number> {
  const text = await (await fetch(`${ctx.listener.url}/metrics`)).text();
  const line = new RegExp(`^service_chain_source_rejected_total\\{chain="btc",source="${new URL(source.url).origin}",reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

/** The script of a regtest address, as Esplora's JSON gives it. */
const scriptHex = (address: string) => Buffer.from(bitcoin.address.toOutputScript(address, bitcoin.networks.regtest)).toString('hex');

/** A transaction's bytes with one output changed: what a forging source would serve (it no longer hashes to the txid). */
function forgedRaw(raw: Buffer, change: (out: { script: Uint8Array; value: bigint }) => void): Buffer {
  const tx = bitcoin.Transaction.fromBuffer(raw);
  for (const out of tx.outs) change(out);
  return Buffer.from(tx.toBuffer());
}

/** The lie in each mode's own route: the address JSON (address mode) or the raw transaction (full mode). */
function lieAboutOutputs(mode: Mode, json: (out: EsploraOut, address: string) => void, raw: (out: { script: Uint8Array; value: bigint }) => void): Lie {
  if (mode === 'address') return editAddressTxs((tx, address) => (tx.status.confirmed ? tx : { ...tx, vout: tx.vout.map((out) => (json(out, address), out)) }));
  return editRawTx((bytes) => forgedRaw(bytes, raw));
}

type EsploraOut = { scriptpubkey: string; scriptpubkey_address?: string; value: number };

for (const mode of ['address', 'full'] as const) {
  for (const position of ['first', 'second'] as const) {
    test(`${mode} mode, liar ${position}: 1,000 sats paid while the source claims 90,000 — partial at most, never confirmed, 1,000 stored`, async () => {
      const setup = await withLiar(mode, position);
      const { ctx, liar } = setup;
      try {
        const invoice = await ctx.createInvoice(90_000, 86_400);
        const script = scriptHex(invoice.receive_address);
        liar.lie = lieAboutOutputs(
          mode,
          (out) => {
            if (out.scriptpubkey === script) out.value = 90_000;
          },
          (out) => {
            if (Buffer.from(out.script).toString('hex') === script) out.value = 90_000n;
          },
        );
        const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 1_000n }]);
        await syncSeeingMempool(setup);
        assert.notEqual((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
        for (const row of await stored(ctx, invoice.invoice_id)) assert.equal(row.value, 1_000, 'a sighting is recorded from bytes hashing to its txid only');
        ctx.chain.mine(6);
        await ctx.sync();
        await ctx.sync();
        const after = await ctx.invoice(invoice.invoice_id);
        assert.equal(after.status, 'partial');
        assert.deepEqual(await stored(ctx, invoice.invoice_id), [{ txid, value: 1_000, status: 'block' }]);
        assert.deepEqual(await ctx.events('invoice.confirmed'), []);
        if (position === 'first' && mode === 'address') assert.ok((await overruled(ctx, 'json-differs')) >= 1, 'the lie is counted in /metrics');
        if (position === 'first' && mode === 'full') assert.ok((await rejected(ctx, liar, 'tx-mismatch')) >= 1, 'the liar is counted in /metrics');
      } finally {
        await close(setup);
      }
    });

    test(`${mode} mode, liar ${position}: a payment moved to another invoice's address in the source's answer is credited only to the invoice its block pays`, async () => {
      const setup = await withLiar(mode, position);
      const { ctx, liar } = setup;
      try {
        const paid = await ctx.createInvoice(30_000, 86_400);
        const other = await ctx.createInvoice(30_000, 86_400);
        const [from, to] = [scriptHex(paid.receive_address), scriptHex(other.receive_address)];
        liar.lie = lieAboutOutputs(
          mode,
          (out) => {
            if (out.scriptpubkey !== from) return;
            out.scriptpubkey = to;
            out.scriptpubkey_address = other.receive_address;
          },
          (out) => {
            if (Buffer.from(out.script).toString('hex') === from) out.script = Buffer.from(to, 'hex');
          },
        );
        // Address mode: the payment is hidden from its own address and listed under the other one's.
        if (mode === 'address') {
          const moved = liar.lie;
          liar.lie = async (path, honest) => {
            if (path.startsWith(`/address/${paid.receive_address}/txs`)) return { status: 200, body: Buffer.from('[]') };
            if (!path.startsWith(`/address/${other.receive_address}/txs`)) return null;
            const asPaid = path.replace(other.receive_address, paid.receive_address);
            return moved(asPaid, async () => {
              const answer = await fetch(`${ctx.server.esploraUrl}${asPaid}`);
              return { status: answer.status, body: Buffer.from(await answer.arrayBuffer()) };
            });
          };
        }
        const txid = ctx.chain.pay([{ address: paid.receive_address, value: 30_000n }]);
        await syncSeeingMempool(setup);
        assert.deepEqual(await stored(ctx, other.invoice_id), [], 'nothing recorded for the address the payment does not pay');
        ctx.chain.mine(1);
        await ctx.sync();
        const confirmed = await ctx.invoice(paid.invoice_id);
        assert.equal(confirmed.status, 'confirmed');
        assert.equal(confirmed.tx_hash, txid);
        assert.equal((await ctx.invoice(other.invoice_id)).status, 'pending');
        assert.deepEqual(await stored(ctx, paid.invoice_id), [{ txid, value: 30_000, status: 'block' }]);
        assert.deepEqual(await stored(ctx, other.invoice_id), []);
        assert.deepEqual((await ctx.events('invoice.confirmed')).map((e) => e.invoice_id), [paid.invoice_id]);
      } finally {
        await close(setup);
      }
    });

    test(`${mode} mode, liar ${position}: a source silent about the mempool — the payment still confirms from its block`, async () => {
      const setup = await withLiar(mode, position);
      const { ctx, liar } = setup;
      try {
        liar.lie = silentAboutMempool;
        const invoice = await ctx.createInvoice(40_000, 86_400);
        const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 40_000n }]);
        await syncSeeingMempool(setup);
        ctx.chain.mine(3);
        await ctx.sync();
        const paid = await ctx.invoice(invoice.invoice_id);
        assert.equal(paid.status, 'confirmed');
        assert.equal(paid.tx_hash, txid);
        assert.deepEqual(await stored(ctx, invoice.invoice_id), [{ txid, value: 40_000, status: 'block' }]);
      } finally {
        await close(setup);
      }
    });
  }
}

for (const database of testDatabases) {
  test(`a sighting stored with another value or invoice than its block holds is overruled by the block (${database.name})`, { skip: database.skip }, async () => {
    const created = await database.create();
    const setup = await withLiar('address', 'first', created.url);
    const { ctx } = setup;
    try {
      const invoice = await ctx.createInvoice(90_000, 86_400);
      const other = await ctx.createInvoice(5_000, 86_400);
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 1_000n }]);
      const tx = (await (await fetch(`${ctx.server.esploraUrl}/tx/${txid}`)).json()) as { vout: { scriptpubkey: string }[] };
      const vout = tx.vout.findIndex((out) => out.scriptpubkey === scriptHex(invoice.receive_address));
      // What the watcher of earlier releases stored from a lying source's JSON: the value claimed, and
      // an output of the same transaction to another invoice that the transaction does not pay.
      const { merchant_id } = await ctx.listener.database.db.selectFrom('invoices').select('merchant_id').where('invoice_id', '=', invoice.invoice_id).executeTakeFirstOrThrow();
      const row = { merchant_id, txid, status: 'mempool', block_height: null, block_hash: null, first_seen_at: ctx.clock.now(), reported: 0 };
      await ctx.listener.database.db
        .insertInto('btc_payments')
        .values([
          { ...row, invoice_id: invoice.invoice_id, vout, value_sats: 90_000 },
          { ...row, invoice_id: other.invoice_id, vout: tx.vout.length, value_sats: 5_000 },
        ])
        .execute();
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'partial');
      assert.equal((await ctx.invoice(other.invoice_id)).status, 'pending');
      assert.deepEqual(await stored(ctx, invoice.invoice_id), [{ txid, value: 1_000, status: 'block' }]);
      assert.deepEqual(await stored(ctx, other.invoice_id), []);
      assert.equal(await overruled(ctx, 'block-differs'), 2, 'both differences counted');
      assert.deepEqual(await ctx.events('invoice.confirmed'), []);
    } finally {
      await close(setup);
      await created.drop();
    }
  });
}
