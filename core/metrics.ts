import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from './clock.ts';
import type { CoreTables } from './schema.ts';
import type { RequestBudgetStats } from './net/request-budget.ts';
import type { WatchObserver, WatcherProgress } from './watch-progress.ts';

/**
 * The service's Prometheus metrics, on a registry of their own (never prom-client's global one), so
 * two services in one process and every test get separate counts. No label ever carries a merchant
 * id, email, address, key or URL path: labels are chains, assets, statuses, outcomes, route
 * templates and chain-source hosts.
 */
export function createServiceMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'service_' });
  const registers = [registry];
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  return {
    registry,
    invoicesCreated: new Counter({ name: 'service_invoices_created_total', help: 'Invoices created, by chain and asset.', labelNames: ['chain', 'asset'], registers }),
    invoiceTransitions: new Counter({
      name: 'service_invoice_transitions_total',
      help: 'Invoice status changes, by chain, asset and new status: those the chain watchers make, and expiries (by the sweeper or on read).',
      labelNames: ['chain', 'asset', 'status'],
      registers,
    }),
    settlementSeconds: new Histogram({
      name: 'service_settlement_seconds',
      help: 'From a payment first seen (mempool or log) to its invoice confirmed, by chain.',
      labelNames: ['chain'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 21600],
      registers,
    }),
    blockToConfirmedSeconds: new Histogram({
      name: 'service_block_to_confirmed_seconds',
      help: 'From the watcher taking in the block the confirmations were counted against (Bitcoin: that block stored; Base: the head read at the start of the pass) to the invoice confirmed, by chain.',
      labelNames: ['chain'],
      buckets: [...seconds, 60, 120, 300, 600],
      registers,
    }),
    httpRequests: new Counter({ name: 'service_http_requests_total', help: 'HTTP requests by method, route template and status.', labelNames: ['method', 'route', 'status'], registers }),
    httpSeconds: new Histogram({ name: 'service_http_request_seconds', help: 'HTTP request duration by method and route template.', labelNames: ['method', 'route'], buckets: seconds, registers }),
    webhookAttempts: new Counter({
      name: 'service_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (failed, another attempt scheduled), failed (the last attempt failed).',
      labelNames: ['outcome'],
      registers,
    }),
    webhookAttemptSeconds: new Histogram({ name: 'service_webhook_attempt_seconds', help: 'Duration of one webhook attempt (request to answer).', labelNames: ['outcome'], buckets: seconds, registers }),
    webhookDeliverySeconds: new Histogram({ name: 'service_webhook_delivery_seconds', help: 'From the event stored to the receiver acknowledging it.', buckets: [...seconds, 60, 300, 1800, 3600], registers }),
    watcherPassSeconds: new Histogram({ name: 'service_watcher_pass_seconds', help: 'Duration of one chain-watcher pass, by chain and outcome (ok, error).', labelNames: ['chain', 'outcome'], buckets: seconds, registers }),
    watcherStepSeconds: new Histogram({ name: 'service_watcher_step_seconds', help: 'Duration of one chain-watcher step, by chain and step name.', labelNames: ['chain', 'step'], buckets: seconds, registers }),
    watcherLagBlocks: new Gauge({ name: 'service_watcher_lag_blocks', help: 'Blocks between the chain tip and the last block the watcher processed, by chain.', labelNames: ['chain'], registers }),
    sourceDisagreements: new Counter({
      name: 'service_source_disagreements_total',
      help: 'Times a chain source reported what the other sources do not (or a different block), by chain and source (scheme, host and port).',
      labelNames: ['chain', 'source'],
      registers,
    }),
    chainSourceRejections: new Counter({
      name: 'service_chain_source_rejected_total',
      help: 'Headers and blocks a chain source served that failed verification (the source is then ignored for a while), by chain, source (scheme, host, port) and reason.',
      labelNames: ['chain', 'source', 'reason'],
      registers,
    }),
    unprovenPaymentClaims: new Counter({
      name: 'service_unproven_payment_claims_total',
      help: "Payment claims overruled by proof, by chain and kind: raw-tx-mismatch (a transaction's bytes do not hash to the txid asked for: dropped), json-differs (a source's JSON names outputs its transaction's bytes do not hold), block-differs (what a verified block holds differs from the unconfirmed sighting; the block wins).",
      labelNames: ['chain', 'kind'],
      registers,
    }),
    x402Settlements: new Counter({
      name: 'service_x402_settlements_total',
      help: 'x402 payments with a signature, by chain and outcome: sent (mined, seen on our node), refused (nothing sent), unavailable (settler or node did not answer), failed (reverted or refused at settle), unseen (reported but not on the chain), replayed (the same payload again).',
      labelNames: ['chain', 'outcome'],
      registers,
    }),
    x402SettlerGas: new Counter({
      name: 'service_x402_settler_gas_total',
      help: "Gas units the built-in x402 settler spent (X402_SETTLER_KEY), by chain: every transaction it sent, reverted ones too; bounded by X402_SETTLER_GAS_BUDGET.",
      labelNames: ['chain'],
      registers,
    }),
    x402SettlerReverts: new Counter({
      name: 'service_x402_settler_reverts_total',
      help: "Settlement transactions of the built-in x402 settler that reverted, by chain (the payer's funds moved after the last simulation): alert on a rise.",
      labelNames: ['chain'],
      registers,
    }),
    rateSourceAsks: new Counter({
      name: 'service_rate_source_requests_total',
      help: 'Requests to each exchange rate source, by source name and outcome: ok, garbage (not its documented shape, no usable price), error (no answer, an HTTP error).',
      labelNames: ['source', 'outcome'],
      registers,
    }),
    rateSourceOutliers: new Counter({
      name: 'service_rate_source_outliers_total',
      help: 'Quotes of each exchange rate source that lay beyond RATE_MAX_SPREAD of the median and were ignored, by source name.',
      labelNames: ['source'],
      registers,
    }),
    mcpToolCalls: new Counter({ name: 'service_mcp_tool_calls_total', help: 'MCP tool calls by tool and outcome (ok, error).', labelNames: ['tool', 'outcome'], registers }),
  };
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

export function watchObserver(metrics: ServiceMetrics, chain: string): WatchObserver {
  return {
    step: (step, s) => metrics.watcherStepSeconds.observe({ chain, step }, s),
    pass: (outcome, s) => metrics.watcherPassSeconds.observe({ chain, outcome }, s),
    lag: (blocks) => metrics.watcherLagBlocks.set({ chain }, Math.max(0, blocks)),
    transition: (asset, status) => metrics.invoiceTransitions.inc({ chain, asset, status }),
    settled: (s) => metrics.settlementSeconds.observe({ chain }, Math.max(0, s)),
    confirmedAfterBlock: (s) => metrics.blockToConfirmedSeconds.observe({ chain }, Math.max(0, s)),
    sourceDisagreed: (source) => metrics.sourceDisagreements.inc({ chain, source }),
    claimOverruled: (kind) => metrics.unprovenPaymentClaims.inc({ chain, kind }),
  };
}

/** The values read at each scrape rather than counted as they happen. */
export interface ScrapeSources {
  db: Kysely<CoreTables>;
  clock: Clock;
  /** The request budgets' counts, one entry per chain source. */
  chainSources?: () => Array<RequestBudgetStats & { retry_wait_ms: number }>;
  /** Each watcher's progress, by chain. */
  watchers?: () => Array<{ chain: string; progress: WatcherProgress }>;
}

/** Adds the scrape-time gauges and counters: invoices by status, the outbox, chain sources, watchers. */
export function addScrapeMetrics(metrics: ServiceMetrics, sources: ScrapeSources): void {
  const registers = [metrics.registry];
  const { db, clock } = sources;
  new Gauge({
    name: 'service_invoices',
    help: 'Stored invoices by chain, asset and status.',
    labelNames: ['chain', 'asset', 'status'],
    registers,
    async collect() {
      const rows = await db.selectFrom('invoices').select(['chain', 'asset', 'status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['chain', 'asset', 'status']).execute();
      this.reset();
      for (const row of rows) this.set({ chain: row.chain, asset: row.asset, status: row.status }, Number(row.n));
    },
  });
  const backlog = async () =>
    db
      .selectFrom('events')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('delivery_status', '=', 'pending')
      .executeTakeFirstOrThrow();
  new Gauge({
    name: 'service_webhook_outbox_depth',
    help: 'Events stored and not yet delivered (queued or failing, not given up).',
    registers,
    async collect() {
      this.set(Number((await backlog()).n));
    },
  });
  new Gauge({
    name: 'service_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest event not yet delivered; 0 when none waits.',
    registers,
    async collect() {
      const { oldest } = await backlog();
      this.set(oldest === null ? 0 : Math.max(0, (clock.now() - Number(oldest)) / 1000));
    },
  });
  if (sources.chainSources) {
    const read = sources.chainSources;
    const perSource = (name: string, help: string, value: (s: RequestBudgetStats & { retry_wait_ms: number }) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['source'],
        registers,
        collect() {
          this.reset();
          for (const stats of read()) this.inc({ source: stats.label }, value(stats));
        },
      });
    perSource('service_chain_source_requests_total', 'Requests sent to each chain source (scheme://host only).', (s) => s.requests);
    perSource('service_chain_source_429_total', 'HTTP 429 answers from each chain source.', (s) => s.http_429);
    perSource('service_chain_source_retry_wait_seconds_total', 'Time requests spent waiting out Retry-After and backoff windows.', (s) => s.retry_wait_ms / 1000);
  }
  if (sources.watchers) {
    const read = sources.watchers;
    new Gauge({
      name: 'service_watcher_last_success_age_seconds',
      help: "Seconds since the watcher's last successful pass, by chain (absent before the first).",
      labelNames: ['chain'],
      registers,
      collect() {
        this.reset();
        for (const { chain, progress } of read()) {
          if (progress.last_success_at) this.set({ chain }, Math.max(0, (clock.now() - Date.parse(progress.last_success_at)) / 1000));
        }
      },
    });
  }
}

/** The open MCP sessions gauge, read from `count` at each scrape. */
export function countMcpSessions(metrics: ServiceMetrics, count: () => number): void {
  new Gauge({ name: 'service_mcp_sessions', help: 'Open MCP Streamable HTTP sessions.', registers: [metrics.registry], collect() { this.set(count()); } });
}
