import { BtcGapReport, DEFAULT_WALLET_GAP_LIMIT } from '../../shared/index.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { loadConfig } from '../config.ts';
import { readEnvironment } from '../../edge/settings.ts';
import { wantsSandbox } from '../../sandbox/sandbox.ts';
import { openCoreDatabase } from '../../core/schema.ts';
import { whyUnreachable } from './unreachable.ts';

export function formatGapReport(report: BtcGapReport): string {
  const show = (value: number | null) => (value === null ? 'none' : String(value));
  const verdict =
    report.wallet_gap_limit <= DEFAULT_WALLET_GAP_LIMIT
      ? `The usual wallet gap limit of ${DEFAULT_WALLET_GAP_LIMIT} shows every payment.`
      : `WARNING: a wallet with the usual gap limit of ${DEFAULT_WALLET_GAP_LIMIT} may not show every payment.\n` +
        `Set your wallet's gap limit to at least ${report.wallet_gap_limit} (docs/chains.md, "Gap limit": Sparrow, Electrum, BlueWallet).`;
  return [
    `highest child index handed out   ${show(report.highest_child_index)}`,
    `highest paid child index         ${show(report.highest_paid_child_index)}`,
    `longest run of unused addresses  ${report.longest_unused_run}`,
    `wallet gap limit needed          ${report.wallet_gap_limit}`,
    '',
    verdict,
  ].join('\n');
}

/** The report of a running listener, from its /health. */
async function reportFromListener(url: string): Promise<BtcGapReport> {
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, '')}/health`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw new Error(`No listener answers at ${url} (${whyUnreachable(error)}): start it (npm start), or pass --url with its address.`);
  }
  if (!response.ok) throw new Error(`${url}/health answered ${response.status}`);
  const body = (await response.json()) as { btc_gap?: unknown };
  if (body.btc_gap === undefined) throw new Error(`${url} reports no Bitcoin address gap (Bitcoin not configured, or its first pass has not run yet)`);
  return BtcGapReport.parse(body.btc_gap);
}

/** The report straight from the database, for the configured wallet key; no listener needed. */
async function reportFromDatabase(): Promise<BtcGapReport> {
  const config = loadConfig(readEnvironment(process.env), defaultChains);
  const walletChain = config.chains.find(({ definition }) => definition.walletGap);
  if (!walletChain) throw new Error('Bitcoin is not configured (MERCHANT_BTC_XPUB is unset): there is no address gap to report.');
  const database = await openCoreDatabase(config.databaseUrl, defaultChains);
  try {
    const accountKey = (walletChain.settings as { accountKey: { keyId: string } | null }).accountKey;
    if (!accountKey) throw new Error('Bitcoin takes Lightning only here (MERCHANT_BTC_XPUB is unset): there is no address gap to report.');
    return await walletChain.definition.walletGap!(database.db, accountKey.keyId);
  } finally {
    await database.close();
  }
}

/** `service gap`: the report of a running listener, or straight from the database. */
export async function runGap(values: Record<string, unknown>): Promise<number> {
  const env = readEnvironment(process.env);
  // An explicit DATABASE_URL names a listener's database, as for `service deliveries`.
  const sandbox = !env.DATABASE_URL?.trim() && wantsSandbox(env, defaultChains);
  const url = (values.url as string | undefined) ?? (sandbox ? `http://127.0.0.1:${env.PORT || 8787}` : undefined);
  const report = url ? await reportFromListener(url) : await reportFromDatabase();
  process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${formatGapReport(report)}\n`);
  return 0;
}
