import { readEnvironment } from '../../edge/settings.ts';
import type { ChainDefinition } from '../../core/chain-definition.ts';
import { STOP_GRACE_MS, describeVerifiedWebhook, endFailedStart, sandboxBaseLines, stopSignal } from '../../edge/start.ts';
import { startCloud } from '../cloud-app.ts';
import { loadCloudConfig } from '../cloud-config.ts';
import { startCloudSandbox, wantsCloudSandbox, type CloudSandbox } from '../sandbox/cloud-sandbox.ts';

/** `service start --cloud`: the multi-tenant API under /api/v1 (docs/cloud.md); with no settings, the Cloud sandbox. */
export async function runCloud(chains: readonly ChainDefinition[]): Promise<number> {
  const env = readEnvironment(process.env);
  const signal = stopSignal();
  let running: { stop(options: { graceMs: number }): Promise<void> };
  try {
    if (wantsCloudSandbox(env)) {
      const sandbox = await startCloudSandbox(env, chains, { onWebhook: (event) => process.stderr.write(describeVerifiedWebhook(event)) });
      process.stderr.write(cloudSandboxBanner(sandbox));
      running = sandbox;
    } else {
      running = await startCloud(loadCloudConfig(env, chains));
    }
  } catch (error) {
    return endFailedStart(error);
  }
  signal.started();
  await signal.requested;
  await running.stop({ graceMs: STOP_GRACE_MS });
  return 0;
}

/**
 * The Cloud sandbox's banner. Its lines are meant to be pasted in order into one shell in the
 * directory it runs in: the first exports the demo merchant's key (printed only here), the create
 * commands keep the invoice id in $ID, and the pay, status and payer-page lines use it.
 */
export function cloudSandboxBanner({ cloud, sandbox, merchant }: CloudSandbox): string {
  const api = `${cloud.url}/api/v1`;
  const key = '-H "X-Service-Api-Key: $SERVICE_API_KEY"';
  const create = (body: string) =>
    `ID=$(curl -s -X POST ${api}/invoice -H 'content-type: application/json' ${key} -d '${body}' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).invoice_id'); echo $ID`;
  const webhooks = sandbox.webhookReceiver
    ? `  Webhooks: sent to a local receiver (${sandbox.webhookReceiver.url}) that verifies each signature and prints it here.`
    : '  Webhooks: none (the sandbox receiver did not start).';
  return [
    '',
    '  CLOUD SANDBOX: no Cloud settings are given (no DATABASE_URL, BTC_ESPLORA_URL, BASE_RPC_URL, …), so this is',
    '  Cloud on local chains with throwaway keys. Coins and tokens are worthless, nothing outlives the run,',
    '  no public network is touched. Paste the lines below in order into one shell, in this directory.',
    `  API:       ${api}   (OpenAPI: ${api}/openapi.json)`,
    `  Dashboard: ${cloud.url}/dashboard   (sign in with the API key below; sign-up makes more merchants)`,
    `  Merchant:  ${merchant.shopName} (${merchant.merchantId}, ${merchant.email}), plan free, with the sandbox's keys.`,
    `  Key:     export SERVICE_API_KEY=${merchant.apiKey}   (its API key, shown only now)`,
    webhooks,
    '  Bitcoin: a local regtest chain.',
    `  Create:  ${create('{"amount_sats":50000}')}`,
    '  Pay:     npx service pay $ID [amount_sats]      Confirm:  npx service mine [n]',
    `  Status:  curl -s ${api}/invoice/$ID ${key}`,
    `  Payer:   echo ${cloud.url}/pay/$ID   (the payer's checkout page: open it in a browser)`,
    ...sandboxBaseLines(sandbox, create, '$ID'),
    '',
    '',
  ].join('\n');
}
