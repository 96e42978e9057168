import { defaultChains } from '../../core/chains/default-chains.ts';
/**
 * A server process for the mcp-live bench, so its CPU and memory are measured apart from the
 * bench's 1,000 clients. `listener`: a listener on a local regtest chain (the watcher passes only
 * when told); `cloud-leader`: a Cloud instance that leads and watches a local chain it serves;
 * `cloud-follower`: a second Cloud instance on the same Postgres. Talks JSON lines: it prints
 * {"ready":…} once serving and {"confirmed":id,"at":ms} when its feed publishes a confirmation
 * ({"written":id,"at":ms} on the listener once it has written it to every stream)
 * ({"told":id,"at":ms} on the Cloud follower, once its feed has told every session);
 * it reads commands `confirm <invoice_id>` (listener) and `pay <address> <sats>` (cloud leader),
 * and in every mode `memory`, answered with {"memory": process.memoryUsage()} (after a full garbage
 * collection when started with --expose-gc, so the heap in use is what is live).
 */
import { createInterface } from 'node:readline';
import { startCloud, type RunningCloud } from '../../cloud/cloud-app.ts';
import { loadCloudConfig } from '../../cloud/cloud-config.ts';
import { silentLogger } from '../../core/log.ts';
import { startListener, type RunningListener } from '../../listener/app.ts';
import { loadConfig } from '../../listener/config.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../sandbox/local-chain-server.ts';
import { payeeOf, REGTEST_TPUB } from '../../test/helpers/btc-chain.ts';
import { tempSqliteUrl } from '../../test/helpers/listener.ts';

const [mode, databaseUrl, esploraUrl] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const say = (message: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(message)}\n`);
const cloudEnv = (esplora: string) => ({
  PORT: '0',
  HOST: '127.0.0.1',
  DATABASE_URL: databaseUrl!,
  BTC_ESPLORA_URL: esplora,
  BTC_ESPLORA_NETWORK: 'regtest',
  BTC_ESPLORA_SELF_HOSTED: 'true',
  CLOUD_WATCH: 'true',
  CLOUD_SIGNUP_RATE_LIMIT: 'off',
  CLOUD_INVOICE_RATE_LIMIT: 'off',
  MCP_MAX_SESSIONS: '5000',
  // One merchant opens every session of the bench, as fast as it can.
  MCP_MAX_SESSIONS_PER_OWNER: '5000',
  MCP_INITIALIZE_RATE_LIMIT: 'off',
  // Every session holds a GET stream besides its POSTs: more connections than the default cap.
  HTTP_MAX_CONNECTIONS: '10000',
});

let stop: () => Promise<void>;
const commands = createInterface({ input: process.stdin });

if (mode === 'listener') {
  const chain = new LocalBtcChain();
  const server = await startLocalChainServer(chain);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: tempSqliteUrl(),
    MERCHANT_BTC_XPUB: REGTEST_TPUB,
    BTC_NETWORK: 'regtest',
    BTC_ESPLORA_URL: server.esploraUrl,
    BTC_ESPLORA_SELF_HOSTED: 'true',
    SERVICE_RATE_LIMIT: 'off',
    MCP_MAX_SESSIONS: '5000',
    MCP_MAX_SESSIONS_PER_OWNER: '5000',
    MCP_MAX_LISTEN_STREAMS: '5000',
    MCP_INITIALIZE_RATE_LIMIT: 'off',
    HTTP_MAX_CONNECTIONS: '10000',
  }, defaultChains);
  // The watcher passes when told (below), not on a timer: idle means idle.
  const listener: RunningListener = await startListener(config, { logger: silentLogger, tuning: { bitcoin: { pollIntervalMs: 3_600_000 } } });
  listener.feed.subscribe((change) => {
    if (change.status !== 'confirmed') return;
    say({ confirmed: change.invoice_id, at: now() });
    // Called after the invoice's own watchers, which have put the notification on every stream; the
    // streams' writes to their sockets are queued behind it (promise jobs, next ticks), so by the
    // next turn of the event loop the process has handed every stream's bytes to the kernel.
    setImmediate(() => say({ written: change.invoice_id, at: now() }));
  });
  commands.on('line', (line) => {
    const [command, invoiceId] = line.split(' ');
    if (command !== 'confirm') return;
    void (async () => {
      const row = await listener.database.db.selectFrom('invoices').select(['receive_address', 'amount_sats']).where('invoice_id', '=', invoiceId!).executeTakeFirstOrThrow();
      chain.pay([{ address: row.receive_address, value: BigInt(row.amount_sats!) }]);
      chain.mine(1);
      await listener.watches.get('btc')!.syncOnce();
    })();
  });
  stop = async () => {
    await listener.stop();
    await server.close();
  };
  say({ ready: listener.url, pid: process.pid });
} else if (mode === 'cloud-leader') {
  const chain = new LocalBtcChain();
  const server = await startLocalChainServer(chain);
  const cloud: RunningCloud = await startCloud(loadCloudConfig(cloudEnv(server.esploraUrl), defaultChains), {
    logger: silentLogger,
    leaderRetryMs: 200,
    chainWatch: { tuning: { bitcoin: { pollIntervalMs: 100 } }, refreshMs: 300 },
  });
  commands.on('line', (line) => {
    const [command, address, sats] = line.split(' ');
    if (command !== 'pay') return;
    chain.pay([{ ...payeeOf(address!), value: BigInt(sats!) }]);
    chain.mine(1);
  });
  stop = async () => {
    await cloud.stop();
    await server.close();
  };
  while (!cloud.isLeader()) await new Promise((resolve) => setTimeout(resolve, 50));
  say({ ready: cloud.url, pid: process.pid, esplora: server.esploraUrl });
} else if (mode === 'cloud-follower') {
  const cloud: RunningCloud = await startCloud(loadCloudConfig(cloudEnv(esploraUrl!), defaultChains), { logger: silentLogger, leaderRetryMs: 60_000 });
  // Called after the invoice's own watchers (the sessions): when the feed has told every session.
  cloud.feed.subscribe((change) => {
    if (change.status === 'confirmed') say({ told: change.invoice_id, at: now() });
  });
  stop = () => cloud.stop();
  say({ ready: cloud.url, pid: process.pid, leader: cloud.isLeader() });
} else {
  throw new Error(`unknown mode ${mode}: listener, cloud-leader or cloud-follower`);
}

commands.on('line', (line) => {
  if (line !== 'memory') return;
  (globalThis as { gc?: () => void }).gc?.();
  say({ memory: process.memoryUsage() });
});
commands.on('close', () => void stop().then(() => process.exit(0)));
