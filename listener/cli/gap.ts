import type { Command } from './command.ts';

export const gapCommand: Command = {
  name: 'gap',
  usage: `
Usage: service gap [--json] [--url LISTENER_URL]

Unpaid invoices leave unused addresses behind. A wallet scanning your key from index 0 stops after
its gap limit (usually 20) of unused addresses in a row and does not show payments beyond them.
This prints the highest child index handed out, the highest paid one, the longest run of unused
addresses below the highest index, and the gap limit your wallet needs (that run + 1).

Reads the database of the configured wallet key (DATABASE_URL, MERCHANT_BTC_XPUB, MERCHANT_ID, from
the environment and ./.env), or with --url asks a running listener's GET /health instead. With
neither DATABASE_URL nor a merchant key set (the sandbox, whose key lives only in its process) it asks the sandbox listener at
http://127.0.0.1:$PORT (default 8787) unless --url says where.
  --json   print the report as one JSON object`,
  options: { json: { type: 'boolean' }, url: { type: 'string' } },
  settings: ['PORT', 'DATABASE_URL', 'MERCHANT_BTC_XPUB', 'MERCHANT_ID'],
  // The report's code (configuration, database, the chain's key) is imported to run, not for --help.
  run: async ({ values }) => (await import('./gap-run.ts')).runGap(values),
};
