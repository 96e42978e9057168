import { parseArgs } from 'node:util';
import { formatReceivedWebhook, startWebhookReceiver, type RunningReceiver } from './receiver.ts';

export const webhookReceiverUsage = `Usage: webhook-receiver [options]

Local test receiver for the listener's signed webhooks. Verifies each delivery's signature over
the raw body (constant time) and its timestamp (within five minutes), prints the event, and answers
200 {"ok":true,...}, or 401 invalid_signature / timestamp_too_old / timestamp_too_new / missing_header.

Options:
  --host <addr>     listen address (default 127.0.0.1)
  --port <n>        listen port (default 9876; 0 picks a free one)
  --path <path>     delivery path (default /webhook)
  --secret <s>      webhook secret (default: env MERCHANT_WEBHOOK_SECRET, then SERVICE_WEBHOOK_SECRET)
  -h, --help        this text`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** Starts the receiver from command-line arguments, or returns the exit code (after printing why) when it does not run. */
export async function runWebhookReceiverCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
  clock = { now: () => Date.now() },
): Promise<RunningReceiver | number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '9876' },
        path: { type: 'string', default: '/webhook' },
        secret: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${webhookReceiverUsage}`);
    return 2;
  }
  if (values.help) {
    io.out(webhookReceiverUsage);
    return 0;
  }
  const secret = values.secret ?? env.MERCHANT_WEBHOOK_SECRET ?? env.SERVICE_WEBHOOK_SECRET;
  const port = Number(values.port);
  const problems = [
    !secret && 'no secret: pass --secret or set MERCHANT_WEBHOOK_SECRET',
    (!Number.isInteger(port) || port < 0 || port > 65535) && `--port must be 0-65535, not ${values.port}`,
    !values.path.startsWith('/') && '--path must start with /',
  ].filter(Boolean);
  if (problems.length > 0) {
    io.err(`webhook-receiver: ${problems.join('; ')}`);
    return 2;
  }
  const receiver = await startWebhookReceiver({
    host: values.host,
    port,
    path: values.path,
    secret: secret!,
    clock,
    onEvent: (event) => io.out(formatReceivedWebhook(event)),
  });
  io.err(`webhook-receiver listening on ${receiver.url}`);
  return receiver;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const receiver = await runWebhookReceiverCli(process.argv.slice(2), process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
  if (typeof receiver === 'number') process.exitCode = receiver;
  else {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void receiver.close());
  }
}
