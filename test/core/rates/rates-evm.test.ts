import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { tickerAdapters } from '../../../core/rates/adapters/index.ts';
import { ratio } from '../../../core/rates/ratio.ts';
import { createRates } from '../../../core/rates/rates.ts';
import { startLocalTickers, type LocalTickers } from '../../../sandbox/local-tickers.ts';
import { ACCOUNT_XPUB, evmServices, evmTestChains, startEvmTestChain } from '../../helpers/evm-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';

const sqlite = testDatabases.find((kind) => kind.name === 'sqlite')!;

describe('EUR-priced USDC on a local EVM chain with real token contracts, through EUR/USD', () => {
  let exchanges: LocalTickers[];
  let rates: ReturnType<typeof createRates>;
  before(async () => {
    exchanges = await Promise.all(['1.0843', '1.0843', '1.0844'].map((rate) => startLocalTickers({ rates: { 'EUR/USD': rate } })));
    const names = ['kraken', 'coinbase', 'bitstamp'] as const;
    rates = createRates({
      settings: { sources: names.map((name, i) => ({ name, adapter: tickerAdapters[name]!, baseUrl: exchanges[i]!.url })), minSources: 2, maxSpread: ratio(1n, 100n) },
      fetch,
      clock: systemClock,
      logger: silentLogger,
    });
  });
  after(() => Promise.all(exchanges.map((exchange) => exchange.close())));

  it('€25.00 at 1.0843 dollars per euro is 27.1075 USDC; paid with the token, confirmed, the event carries the price', async () => {
    const chain = await startEvmTestChain(sqlite, evmTestChains[0]!);
    try {
      const { create, invoice, watcher, events } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), { rates });
      const created = (await create({ chain: evmTestChains[0], price_amount: '25.00', price_currency: 'EUR' })) as Record<string, unknown>;
      assert.deepEqual(
        [created.amount_token, created.amount_token_units, created.price_amount, created.price_currency, created.rate, created.rate_sources],
        ['27.107500', 27_107_500, '25.00', 'EUR', '0.92225399', ['bitstamp', 'coinbase', 'kraken']],
      );
      // Each lists the euro in dollars (Kraken EURUSD, Coinbase's exchange rates, Bitstamp eurusd): all within 1 %, median 1.0843.
      await chain.usdc.transfer(created.receive_address as string, 27_107_500n);
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id as string)).status, 'confirmed');
      const [event] = await events();
      assert.deepEqual([event!.payload.amount, event!.payload.price_amount, event!.payload.rate], ['27.107500', '25.00', '0.92225399']);
    } finally {
      await chain.close();
    }
  });
});
