/**
 * What sources that agree cost honest sources: RPC requests per poll and the poll a payment
 * confirms on, with two URLs over one local anvil node, each poll after one new block (Base's pace),
 * over 20 polls with two xpub payments and one fixed-address payment. Baseline, same run:
 * `BASE_MIN_SOURCES=1` (one source trusted, what xpub mode did before). Target: at most one extra
 * request per block, and every payment confirmed on the same poll. Run: npm run bench -- evm-agreement
 */
import { manualClock } from '../core/clock.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, evmServices, startEvmTestChain, type EvmTestChain } from '../test/helpers/evm-chain.ts';
import { startRpcProxy } from '../test/helpers/rpc-proxy.ts';
import { progress, report, round } from './support/report.ts';

const POLLS = 20;
const IDLE_POLLS = 10;

interface Run {
  requestsPerPoll: number;
  /** Requests per poll over IDLE_POLLS more polls in which no payment is ready. */
  idleRequestsPerPoll: number;
  /** Poll (counted from the payment's block) on which each payment confirmed. */
  confirmedOnPoll: number[];
}

async function run(chain: EvmTestChain, minSources: string): Promise<Run> {
  const second = await startRpcProxy(chain.anvil.url);
  try {
    const config = chain.config({
      MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
      MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
      BASE_RPC_URL: `${chain.anvil.url},${second.url}`,
      BASE_MIN_SOURCES: minSources,
      BASE_CONFIRMATIONS: '3',
    });
    const sources = [chain.source(), chain.source(second.url)];
    const { create, invoice, watcher } = evmServices(chain, config, { sources, clock: manualClock(Date.now()) });
    await watcher.tick();
    const open: Array<{ id: string; paidOnPoll: number }> = [];
    const confirmedOnPoll: number[] = [];
    const before = sources.reduce((n, s) => n + s.requests, 0);
    for (let poll = 0; poll < POLLS; poll++) {
      if (poll === 2 || poll === 9) {
        const created = (await create({ amount_usd: 1 + poll })) as { invoice_id: string; receive_address: string };
        await chain.usdc.transfer(created.receive_address, BigInt((1 + poll) * 1_000_000));
        open.push({ id: created.invoice_id, paidOnPoll: poll });
      } else if (poll === 5) {
        const created = (await create({ amount_usd: 4, asset: 'usdt' })) as { invoice_id: string; amount_usdc_units: number };
        await chain.usdt.transfer(FIXED_ADDRESS, BigInt(created.amount_usdc_units));
        open.push({ id: created.invoice_id, paidOnPoll: poll });
      } else {
        await chain.anvil.mine(1);
      }
      await watcher.tick();
      for (const paid of [...open]) {
        if ((await invoice(paid.id)).status !== 'confirmed') continue;
        confirmedOnPoll.push(poll - paid.paidOnPoll + 1);
        open.splice(open.indexOf(paid), 1);
      }
    }
    if (open.length) throw new Error(`${open.length} payment(s) never confirmed with MIN_SOURCES=${minSources}`);
    const afterPayments = sources.reduce((n, s) => n + s.requests, 0);
    for (let poll = 0; poll < IDLE_POLLS; poll++) {
      await chain.anvil.mine(1);
      await watcher.tick();
    }
    const idle = (sources.reduce((n, s) => n + s.requests, 0) - afterPayments) / IDLE_POLLS;
    return { requestsPerPoll: (afterPayments - before) / POLLS, idleRequestsPerPoll: idle, confirmedOnPoll };
  } finally {
    await second.close();
  }
}

const chain = await startEvmTestChain();
try {
  progress('baseline: BASE_MIN_SOURCES=1');
  const trusted = await run(chain, '1');
  progress('sources that agree: BASE_MIN_SOURCES=2');
  const agreeing = await run(chain, '2');
  const extra = agreeing.requestsPerPoll - trusted.requestsPerPoll;
  report(
    [
      `one source trusted (baseline): ${trusted.requestsPerPoll.toFixed(2)} requests per poll (${trusted.idleRequestsPerPoll.toFixed(2)} idle); payments confirmed on poll ${trusted.confirmedOnPoll.join(', ')} after their block`,
      `two sources agree: ${agreeing.requestsPerPoll.toFixed(2)} requests per poll (${agreeing.idleRequestsPerPoll.toFixed(2)} idle); payments confirmed on poll ${agreeing.confirmedOnPoll.join(', ')} after their block`,
      `extra: ${extra.toFixed(2)} requests per block (target <= 1), same polls: ${agreeing.confirmedOnPoll.join() === trusted.confirmedOnPoll.join()}`,
    ],
    {
      bench: 'evm-agreement',
      value: round(agreeing.requestsPerPoll),
      unit: 'requests/poll',
      baseline: round(trusted.requestsPerPoll),
      ratio: round(agreeing.requestsPerPoll / trusted.requestsPerPoll),
      target: 'at most 1 extra request per block; confirmed on the same poll',
      extra_per_block: round(extra),
      idle_requests_per_poll: round(agreeing.idleRequestsPerPoll),
      baseline_idle_requests_per_poll: round(trusted.idleRequestsPerPoll),
      confirmed_on_poll: agreeing.confirmedOnPoll,
      baseline_confirmed_on_poll: trusted.confirmedOnPoll,
    },
  );
} finally {
  await chain.close();
}
