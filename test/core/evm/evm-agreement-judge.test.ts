import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zeroPadValue } from 'ethers';
import { evmVerification, judge, type ObservedTransfer, type SourceAnswer } from '../../../core/evm/agreement.ts';
import { TRANSFER_TOPIC } from '../../../core/evm/chain.ts';

/** The judging rules alone, over made-up answers: who counts, who is named. */
const transfer: ObservedTransfer = {
  txHash: `0x${'ab'.repeat(32)}`,
  logIndex: 2,
  blockNumber: 100,
  blockHash: `0x${'01'.repeat(32)}`,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  value: 5_000_000n,
};

function receipt(overrides: { blockHash?: string; blockNumber?: number; status?: string; value?: bigint; logIndex?: number } = {}) {
  return {
    status: overrides.status ?? '0x1',
    blockHash: overrides.blockHash ?? transfer.blockHash,
    blockNumber: `0x${(overrides.blockNumber ?? transfer.blockNumber).toString(16)}`,
    logs: [
      {
        address: transfer.token.toLowerCase(),
        topics: [TRANSFER_TOPIC, zeroPadValue('0x1111111111111111111111111111111111111111', 32), zeroPadValue(transfer.to, 32).toLowerCase()],
        data: `0x${(overrides.value ?? transfer.value).toString(16).padStart(64, '0')}`,
        transactionHash: transfer.txHash,
        logIndex: `0x${(overrides.logIndex ?? transfer.logIndex).toString(16)}`,
        blockNumber: `0x${transfer.blockNumber.toString(16)}`,
        blockHash: overrides.blockHash ?? transfer.blockHash,
      },
    ],
  };
}

const answer = (source: string, head: number, r: ReturnType<typeof receipt> | null): SourceAnswer => ({ source, head, receipts: new Map([[transfer.txHash, r]]) });
const named = (verdict: ReturnType<typeof judge>) => verdict.disagreements.map((d) => d.source).sort();

test('two sources reporting the same log at depth agree; each counts depth on its own head', () => {
  const both = judge(transfer, [answer('a', 102, receipt()), answer('b', 102, receipt())], 3);
  assert.deepEqual(both, { agreeing: ['a', 'b'], disagreements: [] });
  const lagging = judge(transfer, [answer('a', 102, receipt()), answer('b', 101, receipt())], 3);
  assert.deepEqual(lagging, { agreeing: ['a'], disagreements: [] }, 'a source not yet deep enough has no vote and is not named');
});

test('a log one source reports and the other, at depth, does not: the reporter is named', () => {
  const verdict = judge(transfer, [answer('liar', 110, receipt()), answer('honest', 110, null)], 3);
  assert.deepEqual(verdict.agreeing, ['liar']);
  assert.deepEqual(named(verdict), ['liar']);
  const silent = judge(transfer, [answer('liar', 110, null), answer('honest', 110, null)], 3);
  assert.deepEqual(silent, { agreeing: [], disagreements: [] }, 'a log no source reports any more counts for nothing and names no one');
});

test('another value, recipient, log index or a failed transaction is not the same log', () => {
  for (const r of [receipt({ value: 5_000_001n }), receipt({ logIndex: 3 }), receipt({ status: '0x0' })]) {
    assert.deepEqual(judge(transfer, [answer('b', 110, r)], 3).agreeing, []);
  }
});

test('block hashes at the height: the side with fewer sources is named, both on a tie', () => {
  const other = `0x${'02'.repeat(32)}`;
  const tie = judge(transfer, [answer('a', 110, receipt()), answer('b', 110, receipt({ blockHash: other }))], 3);
  assert.deepEqual(tie.agreeing, ['a']);
  assert.deepEqual(named(tie), ['a', 'b']);
  const majority = judge(transfer, [answer('a', 110, receipt()), answer('b', 110, receipt({ blockHash: other })), answer('c', 110, receipt())], 3);
  assert.deepEqual(named(majority), ['b']);
  const minority = judge(transfer, [answer('a', 110, receipt()), answer('b', 110, receipt({ blockHash: other })), answer('c', 110, receipt({ blockHash: other }))], 3);
  assert.deepEqual(named(minority), ['a']);
});

test('a withholding source among two reporters is named, not the reporters', () => {
  const verdict = judge(transfer, [answer('a', 110, receipt()), answer('b', 110, receipt()), answer('c', 110, null)], 3);
  assert.deepEqual(verdict.agreeing, ['a', 'b']);
  assert.deepEqual(named(verdict), ['c']);
});

test('verification names the number of agreeing sources, or the trusted own node', () => {
  assert.equal(evmVerification(2), 'sources:2');
  assert.equal(evmVerification(3), 'sources:3');
  assert.equal(evmVerification(1), 'own-node');
});
