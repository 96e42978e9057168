import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  bitsToTarget,
  GENESIS_CHECKPOINT,
  HeaderChain,
  HeaderRejected,
  headerRules,
  parseHeader,
  requiredBits,
  retargetBits,
  targetToBits,
  type HeaderRules,
} from '../../../core/btc/header-chain.ts';
import { checkpoints } from '../../../core/btc/checkpoints.ts';
import { headerHash, mineHeader, unminedHeader } from '../../helpers/headers.ts';

// Mainnet headers 822528..824560 (the retarget interval 408 whole, then the first 17 headers of
// interval 409), from github.com/EthanYuan/ckb-bitcoin-spv-testdata, main-chain/headers/continuous.
const FIRST_HEIGHT = 822528;
const fixture = readFileSync(new URL('../../fixtures/mainnet-headers-822528-824560.bin', import.meta.url));
const mainnetHeader = (height: number) => fixture.subarray((height - FIRST_HEIGHT) * 80, (height - FIRST_HEIGHT + 1) * 80);
// Electrum's electrum/chains/mainnet/checkpoints.json, entries 407 and 408: the hashes of blocks
// 822527 and 824543, the last blocks of intervals 407 and 408.
const ELECTRUM_822527 = '0000000000000000000078f4e50a09391670d061deea0b3b87c3fa60cfaaf782';
const ELECTRUM_824543 = '00000000000000000001595b16989798f8997d89ac778ccc7d0d6c7e88ab4ec9';
const AFTER_FIXTURE_MS = (parseHeader(mainnetHeader(824560)).time + 600) * 1000;

function mainnetFromFixture(): HeaderChain {
  const trusted = Array.from({ length: 2016 }, (_, i) => mainnetHeader(FIRST_HEIGHT + i));
  return new HeaderChain(headerRules.mainnet, { height: 824543, hash: ELECTRUM_824543 }, trusted);
}

test('the mainnet fixture is the real chain: it links to and ends on Electrum checkpoints', () => {
  assert.equal(parseHeader(mainnetHeader(FIRST_HEIGHT)).prevHash, ELECTRUM_822527);
  assert.equal(headerHash(mainnetHeader(824543)), ELECTRUM_824543);
});

test('real mainnet headers across the retarget at 824544 are accepted, with the retarget computed', () => {
  const chain = mainnetFromFixture();
  for (let height = 824544; height <= 824560; height++) {
    const outcome = chain.add(mainnetHeader(height), AFTER_FIXTURE_MS);
    assert.equal(outcome.kind, 'extended', `height ${height}`);
  }
  assert.equal(chain.tip!.height, 824560);
  assert.equal(chain.tip!.hash, '00000000000000000003d70576711e655aaa5b7174772f2bb7d3d194884f3c4b');
  assert.equal(chain.at(824544)!.hash, '00000000000000000001b7f8d0289c6e15e5a6c9a59894b955afcf7dd8f9b1fe');
  // The retarget itself: 0x1703e8b3 over the interval's timespan gives the bits block 824544 carries.
  const start = parseHeader(mainnetHeader(FIRST_HEIGHT)).time;
  const end = parseHeader(mainnetHeader(824543)).time;
  assert.equal(retargetBits(headerRules.mainnet, 0x1703e8b3, start, end), 0x1703d869);
});

test('a real header with one bit of its time changed misses its target', () => {
  const chain = mainnetFromFixture();
  const forged = Buffer.from(mainnetHeader(824544));
  forged[68] ^= 1;
  assert.throws(() => chain.add(forged, AFTER_FIXTURE_MS), (e: unknown) => e instanceof HeaderRejected && e.code === 'high-hash');
  assert.equal(chain.tip!.height, 824543);
});

test('the trusted interval must hash-link to the checkpoint', () => {
  const trusted = Array.from({ length: 2016 }, (_, i) => mainnetHeader(FIRST_HEIGHT + 1 + i));
  assert.throws(
    () => new HeaderChain(headerRules.mainnet, { height: 824543, hash: ELECTRUM_824543 }, trusted),
    (e: unknown) => e instanceof HeaderRejected && e.code === 'checkpoint-mismatch',
  );
  const gapped = Array.from({ length: 2016 }, (_, i) => mainnetHeader(FIRST_HEIGHT + i + (i >= 1000 ? 1 : 0)));
  assert.throws(() => new HeaderChain(headerRules.mainnet, { height: 824544, hash: ELECTRUM_824543 }, gapped), /do not link/);
});

test('compiled checkpoints end retarget intervals and are block hashes', () => {
  for (const [network, checkpoint] of Object.entries(checkpoints)) {
    if (network === 'regtest') {
      assert.deepEqual(checkpoint, GENESIS_CHECKPOINT);
      continue;
    }
    assert.equal(checkpoint.height % 2016, 2015, network);
    assert.match(checkpoint.hash, /^0{6}[0-9a-f]{58}$/, network);
  }
});

test('compact bits round-trip as Bitcoin Core encodes them', () => {
  // Known pairs: mainnet's pow limit, a recent mainnet target, regtest's pow limit.
  assert.equal(bitsToTarget(0x1d00ffff), 0xffffn << 208n);
  assert.equal(targetToBits(0xffffn << 208n), 0x1d00ffff);
  assert.equal(targetToBits(bitsToTarget(0x1703d869)!), 0x1703d869);
  assert.equal(targetToBits(bitsToTarget(0x207fffff)!), 0x207fffff);
  // A mantissa with its top bit set would read as negative: the encoding shifts it into the exponent.
  assert.equal(targetToBits(0x80n << 16n), 0x04008000);
  assert.equal(bitsToTarget(0x04923456), null, 'negative');
  assert.equal(bitsToTarget(0xff123456), null, 'overflow');
});

// Synthetic chains under mainnet's rules with an easy pow limit, so a test can mine them.
const easy: HeaderRules = { network: 'mainnet', powLimitBits: 0x207fffff, minDifficultyBlocks: false, noRetargeting: false };
const INTERVAL_BITS = 0x2000ffff;
const T0 = 1_700_000_000;
const NOW_MS = (T0 + 400 * 24 * 3600) * 1000;

/** A trusted interval (heights 0..2015) of unmined headers `spacing` seconds apart, and its chain. */
function syntheticChain(rules: HeaderRules, spacing: number, bits = INTERVAL_BITS) {
  const trusted: Buffer[] = [];
  let prevHash = 'aa'.repeat(32);
  for (let i = 0; i < 2016; i++) {
    const raw = unminedHeader({ prevHash, time: T0 + i * spacing, bits });
    trusted.push(raw);
    prevHash = headerHash(raw);
  }
  const chain = new HeaderChain(rules, { height: 2015, hash: prevHash }, trusted);
  return { chain, lastTime: T0 + 2015 * spacing };
}

const rejectedWith = (code: string) => (e: unknown) => e instanceof HeaderRejected && e.code === code;

test('a header must link to a known parent', () => {
  const { chain, lastTime } = syntheticChain(easy, 600);
  const tipBits = retargetBits(easy, INTERVAL_BITS, T0, lastTime);
  assert.throws(() => chain.add(mineHeader({ prevHash: 'bb'.repeat(32), time: lastTime + 600, bits: tipBits }), NOW_MS), rejectedWith('unknown-parent'));
  assert.throws(() => chain.add(Buffer.alloc(79), NOW_MS), rejectedWith('malformed'));
});

test('a header whose hash is above its target is refused; the same one mined is accepted', () => {
  const { chain, lastTime } = syntheticChain(easy, 600);
  const fields = { prevHash: chain.tip!.hash, time: lastTime + 600, bits: retargetBits(easy, INTERVAL_BITS, T0, lastTime) };
  assert.throws(() => chain.add(mineHeader(fields, false), NOW_MS), rejectedWith('high-hash'));
  assert.equal(chain.add(mineHeader(fields), NOW_MS).kind, 'extended');
});

test('bits must stay the same inside an interval', () => {
  const { chain, lastTime } = syntheticChain(easy, 600);
  const bits = retargetBits(easy, INTERVAL_BITS, T0, lastTime);
  const first = mineHeader({ prevHash: chain.tip!.hash, time: lastTime + 600, bits });
  chain.add(first, NOW_MS);
  // Easier bits (the fabricator's wish), mined to meet them: refused for the bits alone.
  assert.throws(() => chain.add(mineHeader({ prevHash: headerHash(first), time: lastTime + 1200, bits: 0x207fffff }), NOW_MS), rejectedWith('bad-bits'));
  assert.equal(chain.add(mineHeader({ prevHash: headerHash(first), time: lastTime + 1200, bits }), NOW_MS).kind, 'extended');
});

test('the retarget is clamped to a factor of 4 each way', () => {
  // An interval 8 times too slow: the target may grow 4 times, not 8.
  const slow = syntheticChain(easy, 8 * 600);
  const up = retargetBits(easy, INTERVAL_BITS, T0, slow.lastTime);
  assert.equal(bitsToTarget(up)! / bitsToTarget(INTERVAL_BITS)!, 4n);
  const eightTimes = targetToBits(bitsToTarget(INTERVAL_BITS)! * 8n);
  assert.throws(() => slow.chain.add(mineHeader({ prevHash: slow.chain.tip!.hash, time: slow.lastTime + 600, bits: eightTimes }), NOW_MS), rejectedWith('bad-bits'));
  assert.equal(slow.chain.add(mineHeader({ prevHash: slow.chain.tip!.hash, time: slow.lastTime + 600, bits: up }), NOW_MS).kind, 'extended');

  // An interval 8 times too fast: the target may shrink 4 times, not 8.
  const fast = syntheticChain(easy, 75);
  const down = retargetBits(easy, INTERVAL_BITS, T0, fast.lastTime);
  assert.equal(bitsToTarget(INTERVAL_BITS)! / bitsToTarget(down)!, 4n);
  const eighth = targetToBits(bitsToTarget(INTERVAL_BITS)! / 8n);
  assert.throws(() => fast.chain.add(mineHeader({ prevHash: fast.chain.tip!.hash, time: fast.lastTime + 600, bits: eighth }), NOW_MS), rejectedWith('bad-bits'));
  assert.equal(fast.chain.add(mineHeader({ prevHash: fast.chain.tip!.hash, time: fast.lastTime + 600, bits: down }), NOW_MS).kind, 'extended');
});

test('a header time must be above the median of the previous 11 and at most 2 hours ahead', () => {
  const { chain, lastTime } = syntheticChain(easy, 600);
  const bits = retargetBits(easy, INTERVAL_BITS, T0, lastTime);
  const median = lastTime - 5 * 600;
  const at = (time: number) => mineHeader({ prevHash: chain.tip!.hash, time, bits });
  assert.throws(() => chain.add(at(median), NOW_MS), rejectedWith('time-too-old'));
  const nowMs = (lastTime + 600) * 1000;
  assert.throws(() => chain.add(at(lastTime + 600 + 7201), nowMs), rejectedWith('time-too-new'));
  // Just above the median (older than its parent) and exactly 2 hours ahead are both allowed.
  assert.equal(chain.add(at(median + 1), nowMs).kind, 'extended');
  assert.equal(chain.add(mineHeader({ prevHash: chain.tip!.hash, time: lastTime + 600 + 7200, bits }), nowMs).kind, 'extended');
});

/** Extends the chain from `parentHash` by `count` mined headers; `salt` makes a distinct branch. */
function branch(chain: HeaderChain, parentHash: string, count: number, salt: string) {
  const outcomes = [];
  let prevHash = parentHash;
  let time = chain.byHashOf(parentHash)!.time;
  for (let i = 0; i < count; i++) {
    time += 600;
    const bits = requiredBits(chain.rules, chain.byHashOf(prevHash)!, time);
    const raw = mineHeader({ prevHash, time, bits, merkleRoot: salt.repeat(64) });
    outcomes.push(chain.add(raw, NOW_MS));
    prevHash = headerHash(raw);
  }
  return { outcomes, tipHash: prevHash };
}

test('a heavier competing branch becomes the best chain (reorg); a lighter or equal one is kept aside', () => {
  const { chain } = syntheticChain(easy, 600);
  const main = branch(chain, chain.tip!.hash, 3, 'a');
  assert.equal(chain.tip!.height, 2018);
  const forkFrom = chain.at(2016)!.hash;
  // Two blocks on 2016: equal work to the best chain, seen second: ignored.
  const lighter = branch(chain, forkFrom, 2, 'b');
  assert.deepEqual(lighter.outcomes.map((o) => o.kind), ['side', 'side']);
  assert.equal(chain.tip!.hash, main.tipHash);
  assert.equal(chain.onBestChain(lighter.tipHash), false);
  // One more on that branch: more work than the best chain.
  const heavier = branch(chain, lighter.tipHash, 1, 'b');
  const outcome = heavier.outcomes[0];
  assert.equal(outcome.kind, 'reorg');
  assert.equal(outcome.kind === 'reorg' && outcome.forkHeight, 2016);
  assert.equal(chain.tip!.hash, heavier.tipHash);
  assert.equal(chain.tip!.height, 2019);
  assert.equal(chain.onBestChain(main.tipHash), false);
  assert.deepEqual(chain.bestAbove(2016).map((e) => e.height), [2017, 2018, 2019]);
  // The old branch growing back past it takes the chain back.
  const back = branch(chain, main.tipHash, 2, 'a');
  assert.equal(back.outcomes[1].kind, 'reorg');
  assert.equal(chain.tip!.hash, back.tipHash);
});

test('testnet: a block 20 minutes late may use the easiest target, and the next returns to the real one', () => {
  const testnet: HeaderRules = { ...easy, network: 'testnet', minDifficultyBlocks: true, powLimitBits: 0x207fffff };
  const { chain, lastTime } = syntheticChain(testnet, 600, 0x2000ffff);
  const real = retargetBits(testnet, 0x2000ffff, T0, lastTime);
  const first = mineHeader({ prevHash: chain.tip!.hash, time: lastTime + 600, bits: real });
  chain.add(first, NOW_MS);
  // On time with the easiest target: refused.
  assert.throws(() => chain.add(mineHeader({ prevHash: headerHash(first), time: lastTime + 1200, bits: 0x207fffff }), NOW_MS), rejectedWith('bad-bits'));
  // More than 20 minutes after its parent: the easiest target is allowed.
  const late = mineHeader({ prevHash: headerHash(first), time: lastTime + 600 + 1201, bits: 0x207fffff });
  assert.equal(chain.add(late, NOW_MS).kind, 'extended');
  // The next on-time block must carry the interval's real bits again, not the easiest.
  assert.throws(() => chain.add(mineHeader({ prevHash: headerHash(late), time: lastTime + 2400, bits: 0x207fffff }), NOW_MS), rejectedWith('bad-bits'));
  assert.equal(chain.add(mineHeader({ prevHash: headerHash(late), time: lastTime + 2400, bits: real }), NOW_MS).kind, 'extended');
});

test('regtest: from the genesis block on, every header at the easiest target; no second genesis', () => {
  const chain = new HeaderChain(headerRules.regtest, GENESIS_CHECKPOINT, []);
  const genesis = mineHeader({ prevHash: '00'.repeat(32), time: T0, bits: 0x207fffff });
  assert.equal(chain.add(genesis, NOW_MS).kind, 'extended');
  assert.equal(chain.tip!.height, 0);
  assert.throws(() => chain.add(mineHeader({ prevHash: '00'.repeat(32), time: T0 + 1, bits: 0x207fffff }), NOW_MS), rejectedWith('unknown-parent'));
  assert.throws(() => chain.add(mineHeader({ prevHash: headerHash(genesis), time: T0 + 600, bits: 0x2000ffff }), NOW_MS), rejectedWith('bad-bits'));
  assert.throws(() => chain.add(mineHeader({ prevHash: headerHash(genesis), time: T0 + 600, bits: 0x207fffff }, false), NOW_MS), rejectedWith('high-hash'));
  assert.equal(chain.add(mineHeader({ prevHash: headerHash(genesis), time: T0 + 600, bits: 0x207fffff }), NOW_MS).kind, 'extended');
});

test("a branch of equal work is followed only when asked (a source's node chose it); never a lighter one", () => {
  const { chain } = syntheticChain(easy, 600);
  const main = branch(chain, chain.tip!.hash, 2, 'a');
  const other = branch(chain, chain.at(2015)!.hash, 2, 'b');
  assert.deepEqual(other.outcomes.map((o) => o.kind), ['side', 'side']);
  const lighter = branch(chain, chain.at(2015)!.hash, 1, 'c');
  assert.equal(chain.preferOnTie(lighter.tipHash), null);
  const outcome = chain.preferOnTie(other.tipHash);
  assert.equal(outcome?.kind, 'reorg');
  assert.equal(chain.tip!.hash, other.tipHash);
  assert.equal(chain.preferOnTie(other.tipHash), null, 'already the best');
  assert.equal(chain.onBestChain(main.tipHash), false);
});
