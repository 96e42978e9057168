import { systemClock } from '../../core/clock.ts';
import { formatReceivedWebhook, startWebhookReceiver } from '../../core/webhooks/receiver.ts';
import type { Command } from './command.ts';

export const webhookReceiverCommand: Command = {
  name: 'webhook-receiver',
  usage: `
Usage: service webhook-receiver [--host ADDR] [--port N] [--path PATH] [--secret SECRET]
                                [--allow-legacy-signature]
       (also installed as the bin "webhook-receiver")

Local test receiver for the listener's signed webhooks. Verifies each delivery's Standard Webhooks
signature (webhook-signature over webhook-id, webhook-timestamp and the raw body, constant time)
and its signed timestamp (within five minutes), prints the event, and answers
200 {"ok":true,"event_id":…,"attempt":…,"duplicate":…} (duplicate: the signed id was seen before),
or 401 with the error code invalid_signature, timestamp_too_old, timestamp_too_new,
invalid_timestamp, missing_header, standard_signature_required or unsigned_event_id.

Options:
  --host ADDR     listen address (default 127.0.0.1)
  --port N        listen port (default 9876; 0 picks a free one)
  --path PATH     delivery path (default /webhook)
  --secret S      webhook secret (default: env MERCHANT_WEBHOOK_SECRET, then SERVICE_WEBHOOK_SECRET)
  --allow-legacy-signature
                  also accept a delivery signed only with X-Service-Signature (body only, its
                  timestamp unsigned); its event id is then the body's event_id. Off by default.

Point the listener at it with MERCHANT_WEBHOOK_URL=http://127.0.0.1:9876/webhook.`,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    path: { type: 'string' },
    secret: { type: 'string' },
    'allow-legacy-signature': { type: 'boolean' },
  },
  async run({ values }) {
    const secret = (values.secret as string | undefined) || process.env.MERCHANT_WEBHOOK_SECRET || process.env.SERVICE_WEBHOOK_SECRET;
    const portText = (values.port as string | undefined) ?? '9876';
    const port = Number(portText);
    const path = (values.path as string | undefined) ?? '/webhook';
    const problems = [
      !secret && 'no secret: pass --secret or set MERCHANT_WEBHOOK_SECRET',
      (!/^\d+$/.test(portText) || port > 65535) && `--port must be 0-65535, not ${portText}`,
      !path.startsWith('/') && '--path must start with /',
    ].filter(Boolean);
    if (problems.length > 0) {
      process.stderr.write(`webhook-receiver: ${problems.join('; ')}\n`);
      return 2;
    }
    const receiver = await startWebhookReceiver({
      host: (values.host as string | undefined) ?? '127.0.0.1',
      port,
      path,
      secret: secret as string,
      clock: systemClock,
      allowLegacySignature: values['allow-legacy-signature'] === true,
      onEvent: (event) => process.stdout.write(`${formatReceivedWebhook(event)}\n`),
    });
    process.stderr.write(`webhook-receiver listening on ${receiver.url}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await receiver.close();
    return 0;
  },
};
