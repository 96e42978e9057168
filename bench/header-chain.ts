// Cost of verifying a Bitcoin header (core/btc/header-chain.ts): link, proof of work, required bits,
// median time, cumulative work and the best-chain choice. Measured on 20,000 regtest-rule headers
// from a genesis block, and on the real mainnet headers across the retarget at 824,544 (the
// fixture of test/core/btc/btc-header-chain.test.ts), against the floor every check needs: hashing the
// 80 bytes twice with SHA-256 (the baseline).
// Run: npx tsx bench/header-chain.ts
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GENESIS_CHECKPOINT, HeaderChain, headerRules, parseHeader } from '../core/btc/header-chain.ts';
import { headerHash, mineHeader } from '../test/helpers/headers.ts';
import { progress, report, round } from './support/report.ts';

const COUNT = 20_000;
const TARGET_US = 50;
const T0 = 1_700_000_000;

progress(`mining ${COUNT.toLocaleString('en')} regtest headers…`);
const regtest: Buffer[] = [];
let prevHash = '00'.repeat(32);
for (let i = 0; i < COUNT; i++) {
  const raw = mineHeader({ prevHash, time: T0 + i * 600, bits: 0x207fffff });
  regtest.push(raw);
  prevHash = headerHash(raw);
}
const nowMs = (T0 + COUNT * 600) * 1000;

function microsPerHeader(run: () => number): number {
  const samples: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint();
    const n = run();
    samples.push(Number(process.hrtime.bigint() - started) / 1000 / n);
  }
  return samples.sort((a, b) => a - b)[2];
}

const verify = microsPerHeader(() => {
  const chain = new HeaderChain(headerRules.regtest, GENESIS_CHECKPOINT, []);
  for (const raw of regtest) chain.add(raw, nowMs);
  return regtest.length;
});
const floor = microsPerHeader(() => {
  for (const raw of regtest) createHash('sha256').update(createHash('sha256').update(raw).digest()).digest();
  return regtest.length;
});

const fixture = readFileSync(new URL('../test/fixtures/mainnet-headers-822528-824560.bin', import.meta.url));
const mainnet = Array.from({ length: fixture.length / 80 }, (_, i) => fixture.subarray(i * 80, i * 80 + 80));
const after = mainnet.slice(2016);
const mainnetNowMs = (parseHeader(mainnet[mainnet.length - 1]).time + 600) * 1000;
const checkpoint = { height: 824_543, hash: headerHash(mainnet[2015]) };
const chains = Array.from({ length: 50 }, () => new HeaderChain(headerRules.mainnet, checkpoint, mainnet.slice(0, 2016)));
let next = 0;
const retarget = microsPerHeader(() => {
  const chain = chains[next++ % chains.length];
  if (chain.tip!.height > 824_543) return 1; // used up (rounds beyond the chains made): counts nothing
  for (const raw of after) chain.add(raw, mainnetNowMs);
  return after.length;
});

report(
  [
    `regtest rules, ${COUNT.toLocaleString('en')} headers from genesis: ${round(verify)} µs per header verified`,
    `mainnet rules, ${after.length} real headers across the retarget at 824,544: ${round(retarget)} µs per header`,
    `baseline (double SHA-256 of 80 bytes alone): ${round(floor)} µs`,
    `target: ≤ ${TARGET_US} µs per header`,
  ],
  { bench: 'header-chain', value: round(verify), unit: 'us/header', baseline: round(floor), ratio: round(verify / floor), target: TARGET_US, mainnet_retarget_us: round(retarget), met: verify <= TARGET_US && retarget <= TARGET_US },
);
