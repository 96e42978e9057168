import { defaultChains } from '../../core/chains/default-chains.ts';
import { readEnvironment } from '../../edge/environment.ts';
import type { DeliverySummary } from '../../core/webhooks/delivery-store.ts';
import type { Command } from './command.ts';

/** The configuration, the database and the outbox: imported when the command runs, not for its --help. */
const applicationParts = () =>
  Promise.all([import('../config.ts'), import('../../core/schema.ts'), import('./state-database.ts'), import('../../core/clock.ts'), import('../../core/webhooks/delivery-store.ts')]);

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

function stateOf(d: DeliverySummary): string {
  if (d.status === 'pending') return d.attempts === 0 ? 'queued' : 'failing';
  return d.status;
}

export function formatDeliveries(rows: DeliverySummary[]): string {
  if (rows.length === 0) return 'No pending or failed deliveries.\n';
  const table = [
    ['EVENT ID', 'TYPE', 'STATE', 'ATTEMPTS', 'LAST RESULT', 'LAST ATTEMPT', 'NEXT ATTEMPT'],
    ...rows.map((d) => [
      d.eventId,
      d.type,
      stateOf(d),
      String(d.attempts),
      d.lastError ?? (d.lastHttpStatus === null ? '-' : `HTTP ${d.lastHttpStatus}`),
      iso(d.lastAttemptAt),
      iso(d.nextAttemptAt),
    ]),
  ];
  const widths = table[0].map((_, col) => Math.max(...table.map((row) => row[col].length)));
  return table.map((row) => row.map((cell, col) => cell.padEnd(widths[col])).join('  ').trimEnd()).join('\n') + '\n';
}

export const deliveriesCommand: Command = {
  name: 'deliveries',
  usage: `
Usage: service deliveries [list] [--all] [--json]
       service deliveries attempts <event_id>
       service deliveries resend <event_id>
       service deliveries resend --all-failed

list       events not yet acknowledged (queued, failing) and those that gave up (failed), with the
           last result; --all includes delivered ones.
attempts   every recorded attempt of one event: time, duration, HTTP status, error, first bytes.
resend     makes a failed (or delivered) event due now for one more attempt with the same event id
           and the same stored body, numbered after the last attempt. A running listener sends it
           within a second.
Uses the listener's settings (DATABASE_URL, MERCHANT_ID) from the environment and ./.env. With
neither DATABASE_URL nor a merchant key set it reads the running sandbox's database (run it in the
sandbox's directory), and says so when no sandbox is running there.`,
  options: { all: { type: 'boolean' }, json: { type: 'boolean' }, 'all-failed': { type: 'boolean' } },
  settings: ['DATABASE_URL', 'MERCHANT_ID'],
  async run({ values, positionals }) {
    const [action = 'list', eventId] = positionals;
    if (!['list', 'attempts', 'resend'].includes(action)) {
      process.stderr.write(`Unknown action "${action}". Run "service deliveries --help".\n`);
      return 2;
    }
    if ((action === 'attempts' && !eventId) || (action === 'resend' && !eventId === !values['all-failed'])) {
      process.stderr.write(`"${action}" needs ${action === 'resend' ? 'an event id or --all-failed' : 'an event id'}.\n`);
      return 2;
    }
    const [{ loadConfig }, { openCoreDatabase }, { stateDatabaseUrl }, { systemClock }, { listAttempts, listDeliveries, resendDeliveries }] = await applicationParts();
    const env = readEnvironment(process.env);
    const config = loadConfig(env, defaultChains);
    const database = await openCoreDatabase(stateDatabaseUrl(env, config.databaseUrl, defaultChains), defaultChains);
    try {
      if (action === 'list') {
        const statuses: DeliverySummary['status'][] = values.all ? ['pending', 'failed', 'delivered'] : ['pending', 'failed'];
        const rows = await listDeliveries(database.db, config.merchantId, statuses);
        process.stdout.write(values.json ? `${JSON.stringify(rows, null, 2)}\n` : formatDeliveries(rows));
        return 0;
      }
      if (action === 'attempts') {
        const attempts = await listAttempts(database.db, config.merchantId, eventId);
        if (attempts.length === 0) process.stdout.write(`No recorded attempts for ${eventId}.\n`);
        for (const a of attempts) {
          const result = a.error ?? `HTTP ${a.http_status}`;
          const excerpt = a.response_excerpt ? `  answer: ${JSON.stringify(a.response_excerpt.slice(0, 120))}` : '';
          process.stdout.write(`#${a.attempt}  ${iso(Number(a.started_at))}  ${a.duration_ms ?? '-'} ms  ${result}${excerpt}\n`);
        }
        return 0;
      }
      const target = values['all-failed'] ? { allFailed: true as const } : { eventId };
      const ids = await resendDeliveries(database.db, config.merchantId, target, systemClock.now());
      if (ids.length === 0) {
        process.stderr.write(eventId ? `${eventId}: no failed or delivered event with that id (pending ones are already being retried).\n` : 'No failed deliveries.\n');
        return eventId ? 1 : 0;
      }
      process.stdout.write(`Queued for re-send: ${ids.join(', ')}\n`);
      return 0;
    } finally {
      await database.close();
    }
  },
};
