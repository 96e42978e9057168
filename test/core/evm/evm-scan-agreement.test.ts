import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agreedHeader, judgeScan, quorumValue, type ScanView } from '../../../core/evm/scan-agreement.ts';
import type { BlockHeader, TransferLog } from '../../../core/evm/chain.ts';

/** The scan's judging rules alone, over the views three sources could give of one range. */
const block = (number: number, hash = `0x${String(number).padStart(64, '0')}`, time = number * 2_000): BlockHeader => ({ number, hash, parentHash: '0x', time });
const log = (number: number, overrides: Partial<TransferLog> = {}): TransferLog => ({
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  from: '0x1111111111111111111111111111111111111111',
  to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  value: 5_000_000n,
  txHash: `0x${'ab'.repeat(32)}`,
  logIndex: 0,
  blockNumber: number,
  blockHash: block(number).hash,
  ...overrides,
});
const view = (source: string, logs: TransferLog[], headers: BlockHeader[] = [block(100), block(110)], reached = 110): ScanView => ({
  source,
  reached,
  logs,
  headers: new Map(headers.map((h) => [h.number, h])),
});
const rule = { quorum: 2, voters: 3, deepest: 108 };
const named = (verdict: ReturnType<typeof judgeScan>) => [...new Set(verdict.disagreements.map((d) => d.source))].sort();

test('a censor listed first: the two that report the log agree; the censor is named at depth', () => {
  const verdict = judgeScan([view('censor', []), view('a', [log(100)]), view('b', [log(100)])], rule);
  assert.deepEqual(verdict.agreed.map((a) => a.log.blockNumber), [100]);
  assert.equal(verdict.agreed[0]!.header.time, 200_000, "the block's time is the agreed header's");
  assert.equal(verdict.holdAt, null);
  assert.deepEqual(named(verdict), ['censor']);
});

test('at the tip a source without the log is not named (its logs may lag its head)', () => {
  const verdict = judgeScan([view('slow', []), view('a', [log(110)]), view('b', [log(110)])], rule);
  assert.equal(verdict.agreed.length, 1);
  assert.deepEqual(verdict.disagreements, []);
});

test('a made-up log at depth is refused and its reporter named; at the tip it holds the range', () => {
  const deep = judgeScan([view('liar', [log(100)]), view('a', []), view('b', [])], rule);
  assert.deepEqual(deep.agreed, []);
  assert.equal(deep.holdAt, null);
  assert.deepEqual(named(deep), ['liar']);
  const tip = judgeScan([view('liar', [log(110)]), view('a', []), view('b', [])], rule);
  assert.equal(tip.holdAt, 110, 'judged again once deep');
  assert.deepEqual(tip.disagreements, []);
});

test('one report against one denial with a third source not heard: the range holds below the block', () => {
  const verdict = judgeScan([view('censor', []), view('a', [log(100)])], rule);
  assert.deepEqual(verdict.agreed, []);
  assert.equal(verdict.holdAt, 100);
});

test('another value, time or block is another log: one variant agrees, the odd one is named', () => {
  const variants = judgeScan([view('liar', [log(100, { value: 9_000_000n })]), view('a', [log(100)]), view('b', [log(100)])], rule);
  assert.deepEqual(variants.agreed.map((a) => a.log.value), [5_000_000n]);
  assert.deepEqual(named(variants), ['liar']);
  const time = judgeScan([view('liar', [log(100)], [block(100, undefined, 1), block(110)]), view('a', [log(100)]), view('b', [log(100)])], rule);
  assert.equal(time.agreed.length, 1);
  assert.equal(time.agreed[0]!.header.time, 200_000, 'a time one source alone claims is not the block time');
  assert.ok(named(time).includes('liar'));
  assert.ok(
    time.disagreements.some((d) => d.source === 'liar' && d.reason === `reports time 1970-01-01T00:00:00.001Z for block ${block(100).hash} at height 100 where a, b report 1970-01-01T00:03:20.000Z`),
    'a header with the same hash and another time is named as a lie about the time',
  );
});

test('a log on a block the others agree is not the chain: not counted, the odd source named at depth', () => {
  const forged = block(100, `0x${'de'.repeat(32)}`);
  const verdict = judgeScan([view('liar', [log(100, { blockHash: forged.hash })], [forged, block(110)]), view('a', []), view('b', [])], rule);
  assert.deepEqual(verdict.agreed, []);
  assert.equal(verdict.holdAt, null);
  assert.deepEqual(named(verdict), ['liar']);
});

test('the head and finalized block quorum sources reach; the header quorum sources agree on', () => {
  assert.equal(quorumValue([1_000_000, 100, 99], 2), 100, 'a far higher claim does not move it');
  assert.equal(quorumValue([0, 100, 100], 2), 100, 'a far lower claim does not hold it');
  assert.equal(quorumValue([100], 2), null);
  assert.equal(agreedHeader([block(5), block(5, undefined, 1), null], 2), null);
  assert.deepEqual(agreedHeader([block(5), block(5, undefined, 1), block(5)], 2), block(5));
});
