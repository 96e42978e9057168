import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeBlockTime, type BlockTimesAnswer } from '../../../core/evm/block-times.ts';

const block = { hash: `0x${'cd'.repeat(32)}`, number: 100 };
const answer = (source: string, time?: number): BlockTimesAnswer => ({ source, times: new Map(time === undefined ? [] : [[block.hash, time]]) });

test('two sources giving the same time agree on it; nobody is named', () => {
  const verdict = judgeBlockTime(block, ['a', 'b'], [answer('a', 1_000_000), answer('b', 1_000_000)], 2);
  assert.deepEqual(verdict, { agreed: 1_000_000, agreeing: ['a', 'b'], disagreements: [] });
});

test('two sources outvote one giving another time: the agreed time stands and the odd one is named', () => {
  const verdict = judgeBlockTime(block, ['a', 'b', 'c'], [answer('a', 1_000_000), answer('b', 400_000), answer('c', 400_000)], 2);
  assert.equal(verdict.agreed, 400_000);
  assert.deepEqual(verdict.agreeing, ['b', 'c']);
  assert.deepEqual(verdict.disagreements.map((d) => d.source), ['a']);
  assert.match(verdict.disagreements[0]!.reason, /reports time 1970-01-01T00:16:40.000Z for block 100 .* b reports 1970-01-01T00:06:40.000Z/);
});

test('one source against another proves no time: the transfer waits and both are named', () => {
  const verdict = judgeBlockTime(block, ['a', 'b'], [answer('a', 1_000_000), answer('b', 400_000)], 2);
  assert.equal(verdict.agreed, null);
  assert.deepEqual(verdict.disagreements.map((d) => d.source).sort(), ['a', 'b']);
});

test('a tie between two times proves neither, even with enough votes on each', () => {
  const answers = [answer('a', 1), answer('b', 1), answer('c', 2), answer('d', 2)];
  assert.equal(judgeBlockTime(block, ['a', 'b', 'c', 'd'], answers, 2).agreed, null);
});

test('a silent source (no header) gives no vote; a source not agreeing on the log has no say on its time', () => {
  assert.equal(judgeBlockTime(block, ['a', 'b'], [answer('a', 1_000_000), answer('b')], 2).agreed, null, 'one voice is not two');
  const verdict = judgeBlockTime(block, ['a', 'b'], [answer('a', 1_000_000), answer('b', 1_000_000), answer('liar', 5)], 2);
  assert.deepEqual([verdict.agreed, verdict.disagreements], [1_000_000, []]);
});
