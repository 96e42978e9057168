import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { manualClock } from '../../../core/clock.ts';
import { headerRules, parseHeader } from '../../../core/btc/header-chain.ts';
import type { HeaderSource, SourceHeader } from '../../../core/btc/header-source.ts';
import { createVerifiedHeaders } from '../../../core/btc/verified-headers.ts';
import { silentLogger } from '../../../core/log.ts';
import { openCoreDatabase } from '../../../core/schema.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';

// The first sync of a network with a checkpoint, on real mainnet headers: the checkpoint's interval
// downloaded and hash-linked to the checkpoint, the rest checked by the rules, over several passes
// within each one's request allowance; then stored, so a restart asks only for the tip.
// Headers 822,528..824,560: test/fixtures/README.md; block 824,543 is Electrum's checkpoint 408.
const FIRST = 822_528;
const fixture = readFileSync(new URL('../../fixtures/mainnet-headers-822528-824560.bin', import.meta.url));
const headers: SourceHeader[] = Array.from({ length: fixture.length / 80 }, (_, i) => ({ height: FIRST + i, raw: Buffer.from(fixture.subarray(i * 80, i * 80 + 80)) }));
const CHECKPOINT = { height: 824_543, hash: '00000000000000000001595b16989798f8997d89ac778ccc7d0d6c7e88ab4ec9' };
const TIP = headers[headers.length - 1];
const NOW = (parseHeader(TIP.raw).time + 600) * 1000;

/** A source serving the fixture as Esplora would (pages of 10 down from a height), counting requests; `serve` may alter a header. */
function fixtureSource(serve: (h: SourceHeader) => SourceHeader = (h) => h) {
  const byHash = new Map(headers.map((h) => [parseHeader(h.raw).hash, h]));
  const source = {
    requests: 0,
    async tipHash() {
      source.requests++;
      return parseHeader(TIP.raw).hash;
    },
    async headerOf(hash: string) {
      source.requests++;
      const found = byHash.get(hash);
      return found ? serve(found) : null;
    },
    async headersDownFrom(top: number) {
      source.requests++;
      return headers.filter((h) => h.height <= top && h.height > top - 10).reverse().map(serve);
    },
  } satisfies HeaderSource & { requests: number };
  return source;
}

test('first sync from a checkpoint: over several passes within the allowance, then stored; a restart asks only for the tip', async () => {
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  try {
    const source = fixtureSource();
    const make = () =>
      createVerifiedHeaders({
        network: 'mainnet',
        rules: headerRules.mainnet,
        checkpoint: CHECKPOINT,
        sources: [{ label: 'https://fixture.example', headers: source }],
        db: database.db,
        clock: manualClock(NOW),
        logger: silentLogger,
        maxRequestsPerSync: 50,
      });
    const verified = make();
    const passes: boolean[] = [];
    while (!(await verified.sync())) {
      passes.push(false);
      const status = verified.status();
      assert.equal(status.synced, false);
      assert.ok(passes.length < 10, 'the sync ends');
    }
    // 1 tip + 202 pages for the interval, then the tip's header and 2 pages: 50 requests a pass.
    assert.equal(passes.length, 4);
    const status = verified.status();
    assert.deepEqual([status.height, status.target_height, status.synced, status.checkpoint_height], [824_560, 824_560, true, 824_543]);
    assert.deepEqual(status.sources, [{ source: 'https://fixture.example', state: 'ok', tip_height: 824_560, problem: null }]);
    assert.equal(verified.chain()!.at(824_544)!.bits, 0x1703d869, 'the retarget computed, not taken');
    const rows = await database.db.selectFrom('btc_headers').select(['height']).where('network', '=', 'mainnet').execute();
    assert.equal(rows.length, headers.length, 'the interval and every later header, 80 bytes each');

    const before = source.requests;
    const restarted = make();
    assert.equal(await restarted.sync(), true);
    assert.equal(source.requests - before, 1, 'only the tip asked');
    assert.equal(restarted.status().height, 824_560);
  } finally {
    await database.close();
  }
});

test('a source whose interval does not lead to the checkpoint is named invalid, and nothing of it is believed', async () => {
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  try {
    // One header of the interval with a changed time: it no longer hashes to what its child links to.
    const liar = fixtureSource((h) => {
      if (h.height !== 823_000) return h;
      const raw = Buffer.from(h.raw);
      raw[68] ^= 1;
      return { height: h.height, raw };
    });
    const verified = createVerifiedHeaders({
      network: 'mainnet',
      rules: headerRules.mainnet,
      checkpoint: CHECKPOINT,
      sources: [{ label: 'https://liar.example', headers: liar }],
      db: database.db,
      clock: manualClock(NOW),
      logger: silentLogger,
      maxRequestsPerSync: 1_000,
    });
    await assert.rejects(verified.sync(), /does not lead to the release's checkpoint/);
    const status = verified.status();
    assert.equal(status.height, null);
    assert.equal(status.sources[0].state, 'invalid');
    assert.match(verified.problem()!.reason, /^https:\/\/liar\.example served an invalid header: .*does not lead to the release's checkpoint \(headers do not link\)$/);
    assert.equal((await database.db.selectFrom('btc_headers').select('height').execute()).length, 0);
  } finally {
    await database.close();
  }
});

test("/health warns once the release's checkpoint is older than 180 days, by the injected clock", async () => {
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  try {
    const day = 86_400_000;
    const warningAt = (ageDays: number) =>
      createVerifiedHeaders({
        network: 'mainnet',
        rules: headerRules.mainnet,
        checkpoint: { ...CHECKPOINT, takenAt: new Date(NOW - ageDays * day).toISOString().slice(0, 10) },
        sources: [{ label: 'https://fixture.example', headers: fixtureSource() }],
        db: database.db,
        clock: manualClock(NOW),
        logger: silentLogger,
      }).status().warning;
    assert.equal(warningAt(179), null);
    assert.equal(warningAt(180), null);
    assert.match(warningAt(200)!, /^the release's Bitcoin checkpoint is 200 days old \(over 180\): a first sync downloads about 29,000 headers more; upgrade to a newer release$/);
    const undated = createVerifiedHeaders({ network: 'mainnet', rules: headerRules.mainnet, checkpoint: CHECKPOINT, sources: [], db: database.db, clock: manualClock(NOW), logger: silentLogger });
    assert.equal(undated.status().warning, null, 'a checkpoint without a date (regtest from its genesis block) gives none');
  } finally {
    await database.close();
  }
});
