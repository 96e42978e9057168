import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createLogger } from '../core/log.ts';
import { loadMcpConfig } from './config.ts';
import { keepAliveFetch } from './keep-alive-fetch.ts';
import { createListenerClient } from './listener-client.ts';
import { renderQrPng } from './qr.ts';
import { createServer } from './server.ts';
import { DEFAULT_POLL_INTERVAL_MS } from './deps.ts';
import { pollingUpdates } from './invoice-watch.ts';
import { paymentStateFor, paymentStateSettings } from './payment-state.ts';
import { defaultChains } from '../core/chains/default-chains.ts';

/** How long a tool waits for the listener before answering `listener_timeout`. */
const LISTENER_TIMEOUT_MS = 15_000;

// stdout carries the protocol and nothing else: every log line goes to stderr.
const writeStderr = (line: string) => process.stderr.write(`${line}\n`);

const loaded = loadMcpConfig(process.env);
if (!loaded.ok) {
  writeStderr(`service-mcp: invalid configuration:\n${loaded.problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
const { config } = loaded;
const logger = createLogger({ write: writeStderr, secrets: [config.apiKey], fields: { component: 'mcp' } });

const listener = createListenerClient({
  baseUrl: config.listenerUrl,
  apiKey: config.apiKey,
  fetch: keepAliveFetch(),
  timeoutMs: LISTENER_TIMEOUT_MS,
  logger,
});
/**
 * The checkout page beside a listener's API. Cloud's API (`…/api/v1`) has its page elsewhere, at a
 * URL this process does not know: no page then, and open_checkout leaves the invoice as it is.
 */
const checkoutUrl = (invoiceId: string) => (/\/api\/v1$/.test(config.listenerUrl) ? null : `${config.listenerUrl}/pay/${invoiceId}`);
// One process, one client: a secret of the process seals its state.
const paymentState = paymentStateFor(paymentStateSettings(undefined, checkoutUrl), 'stdio');
const deps = { listener, updates: pollingUpdates(listener, DEFAULT_POLL_INTERVAL_MS), chains: defaultChains, renderQr: renderQrPng, logger, paymentState };
// Serves both eras: a 2025 initialize or a 2026-07-28 server/discover opens the connection.
const served = serveStdio(({ era }) => createServer(deps, era));

let closing = false;
async function shutdown(reason: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info('stopping', { reason });
  await served.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
// The client closing our stdin is the normal end of a stdio session.
process.stdin.once('end', () => void shutdown('stdin closed'));

logger.info('MCP server ready on stdio', {
  listener_url: config.listenerUrl,
  api_key: config.apiKey ? 'set' : 'unset',
});
