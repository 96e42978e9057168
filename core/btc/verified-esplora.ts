import type { Kysely } from 'kysely';
import type { BtcNetwork } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import { sourceLabel } from '../net/request-budget.ts';
import type { ChainSource } from './chain-source.ts';
import type { Fetch } from '../net/fetch.ts';
import { checkpoints } from './checkpoints.ts';
import { createEsploraSource, type EsploraSource } from './esplora-source.ts';
import { headerRules } from './header-chain.ts';
import { createVerifiedChainSource } from './verified-chain-source.ts';
import { createVerifiedHeaders, type VerifiedHeaders } from './verified-headers.ts';

export interface VerifiedEsploraOptions {
  network: BtcNetwork;
  /** One or more Esplora APIs, each checked on its own. */
  urls: string[];
  /** The fetch each URL's requests go through (its request budget). */
  fetchFor(url: string): Fetch;
  /** Turns the sprint of each URL's request budget on or off while the header chain syncs. */
  sprintFor?(url: string): (on: boolean) => void;
  db: Kysely<CoreTables>;
  clock: Clock;
  logger: Logger;
  /** Wraps each URL's source, e.g. to share its answers among many watchers. */
  wrap?(source: ChainSource): ChainSource;
  onRejected?(source: string, reason: string): void;
}

export interface VerifiedEsplora {
  source: ChainSource;
  headers: VerifiedHeaders;
  /** The first URL's Esplora: address routes (asked about open invoices only, never believed for confirmations). */
  first: EsploraSource;
}

/** Esplora sources whose every block is checked against a header chain verified from the release's checkpoint. */
export function createVerifiedEsplora(options: VerifiedEsploraOptions): VerifiedEsplora {
  const wrap = options.wrap ?? ((source: ChainSource) => source);
  const labels = new Set<string>();
  const esploras = options.urls.map((url, i) => {
    // Two URLs on one host are still told apart.
    const label = labels.has(sourceLabel(url)) ? `${sourceLabel(url)} (#${i + 1})` : sourceLabel(url);
    labels.add(label);
    const esplora = createEsploraSource({ baseUrl: url, fetch: options.fetchFor(url) });
    return { label, esplora, source: wrap(esplora), sprint: options.sprintFor?.(url) };
  });
  const headers = createVerifiedHeaders({
    network: options.network,
    rules: headerRules[options.network],
    checkpoint: checkpoints[options.network],
    // The tip through the wrapper (shared among watchers, reused briefly); headers straight from the API.
    sources: esploras.map(({ label, esplora, source, sprint }) => ({
      label,
      headers: { tipHash: () => source.tipHash(), headerOf: esplora.headerOf, headersDownFrom: esplora.headersDownFrom },
      sprint,
    })),
    db: options.db,
    clock: options.clock,
    logger: options.logger,
    onRejected: options.onRejected,
  });
  const source = createVerifiedChainSource(
    headers,
    esploras.map(({ label, source }) => ({ label, source })),
    options.onRejected,
  );
  return { source, headers, first: esploras[0].esplora };
}
