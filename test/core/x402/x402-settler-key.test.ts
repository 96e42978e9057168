import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet } from 'ethers';
import { startListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { silentLogger } from '../../../core/log.ts';
import { startLocalEvm } from '../../../sandbox/local-evm.ts';
import { ACCOUNT_XPUB, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { handSignedPayment, randomAccount, x402Agent } from '../../helpers/x402-agent.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { encodeFunctionData, erc20Abi } from 'viem';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { postJson, tempSqliteUrl } from '../../helpers/listener.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { requirementsOf, startX402Listener } from '../../helpers/x402-listener.ts';

/** The private key of the test account key's invoice address `index` (the xpub's child 0/index). */
const accountChildKey = (index: number) =>
  HDNodeWallet.fromPhrase('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', undefined, `m/44'/60'/0'/0/${index}`).privateKey as `0x${string}`;

test('settler key: start refuses an X402_SETTLER_KEY of a receive address, each way one is configured (the chain\'s fixed address, the shared EVM address, the account key\'s next address, an invoice\'s address), naming the setting and never the key; a key of its own starts', async () => {
  const chain = await startEvmTestChain(testDatabases[0]);
  const start = (env: Record<string, string>, databaseUrl = tempSqliteUrl()) =>
    startListener(
      loadConfig({
        PORT: '0',
        DATABASE_URL: databaseUrl,
        SERVICE_RATE_LIMIT: 'off',
        MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address}`,
        BASE_RPC_URL: chain.anvil.url,
        // One local node, declared trusted as an operator declares its own.
        BASE_MIN_SOURCES: '1',
        BASE_CHAIN_ID: String(chain.anvil.chainId),
        BASE_FINALITY: 'count',
        ...env,
      }, defaultChains),
      { logger: silentLogger },
    );
  const refusesStart = async (what: string, env: Record<string, string>, key: string, databaseUrl?: string) => {
    await assert.rejects(start({ ...env, X402_SETTLER_KEY: key }, databaseUrl), (error: Error) => {
      assert.match(error.message, /X402_SETTLER_KEY is the key of 0x[0-9a-fA-F]{40}/, what);
      assert.ok(!error.message.includes(key.slice(2)), `${what}: the key is never echoed`);
      return true;
    }, what);
  };
  try {
    const own = randomAccount();
    await refusesStart('MERCHANT_BASE_ADDRESS', { MERCHANT_BASE_ADDRESS: own.account.address }, own.key);
    await refusesStart('MERCHANT_EVM_ADDRESS (every EVM chain)', { MERCHANT_EVM_ADDRESS: own.account.address }, own.key);
    await refusesStart('the account key\'s next invoice address', { MERCHANT_BASE_XPUB: ACCOUNT_XPUB }, accountChildKey(0));
    await refusesStart('the account key 20 addresses ahead', { MERCHANT_BASE_XPUB: ACCOUNT_XPUB }, accountChildKey(19));

    // Three invoices handed out (indexes 0-2): index 1 is an invoice's address now.
    const databaseUrl = tempSqliteUrl();
    const listener = await start({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }, databaseUrl);
    for (let i = 0; i < 3; i++) assert.equal((await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 1 })).status, 201);
    await listener.stop({ graceMs: 0 });
    await refusesStart("an invoice's derived address", { MERCHANT_BASE_XPUB: ACCOUNT_XPUB }, accountChildKey(1), databaseUrl);

    const gasOnly = randomAccount();
    const started = await start({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, X402_SETTLER_KEY: gasOnly.key }, databaseUrl);
    await started.stop({ graceMs: 0 });
  } finally {
    await chain.close();
  }
});

test("settler key on Cloud: start refuses an X402_SETTLER_KEY of any merchant's receive address", async () => {
  const database = await testDatabases[0].create();
  const evm = await startLocalEvm({ chains: defaultChains });
  const merchant = randomAccount();
  const { MERCHANT_EVM_XPUB: _x, MERCHANT_EVM_ADDRESS: _a, ...chainEnv } = evm.env;
  const env = { ...chainEnv, DATABASE_URL: database.url, CLOUD_SIGNUP_RATE_LIMIT: 'off' };
  try {
    const cloud = await startTestCloud({ env });
    await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', address: merchant.account.address }] });
    await cloud.stop();
    await assert.rejects(startTestCloud({ env: { ...env, X402_SETTLER_KEY: merchant.key } }), /X402_SETTLER_KEY is the key of .* a receive address on base/);
    const gasOnly = randomAccount();
    const started = await startTestCloud({ env: { ...env, X402_SETTLER_KEY: gasOnly.key } });
    await started.stop();
  } finally {
    await evm.close();
    await database.drop();
  }
});

/** A listener whose settler sends through `rpcUrl` (a proxy that lets the payer act first). */
function settlingListener(chain: EvmTestChain, rpcUrl: string, settlerKey: string, env: Record<string, string> = {}) {
  return startX402Listener(chain, { BASE_RPC_URL: rpcUrl, X402_SETTLER_KEY: settlerKey, X402_SETTLE_TIMEOUT_S: '3', ...env }, { logger: silentLogger });
}

/** A test chain behind an RPC proxy, a settler and a payer with gas, the payer with 10 USDC, and an account elsewhere. */
async function gasStage() {
  const chain = await startEvmTestChain(testDatabases[0]);
  const proxy = await startRpcProxy(chain.anvil.url);
  const settler = randomAccount();
  const payer = randomAccount();
  const elsewhere = randomAccount();
  await chain.anvil.rpc('anvil_setBalance', [settler.account.address, '0x8AC7230489E80000']);
  await chain.anvil.rpc('anvil_setBalance', [payer.account.address, '0x8AC7230489E80000']);
  await chain.usdc.transfer(payer.account.address, 10_000_000n, 1);
  return { chain, proxy, settler, payer, elsewhere };
}

/** The payer's own transfer of all its USDC elsewhere, sent from its account (anvil impersonates it). */
const emptyWallet = (chain: EvmTestChain, payer: string, to: string, amount: bigint) => async () => {
  await chain.anvil.rpc('anvil_impersonateAccount', [payer]);
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as `0x${string}`, amount] });
  await chain.anvil.rpc('eth_sendTransaction', [{ from: payer, to: chain.usdc.address, data }]);
};

/** transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32): a simulation of the payer's transfer. */
const TRANSFER_WITH_AUTHORIZATION = '0xe3ee160e';

test('settler gas: a payer who empties their wallet after the service\'s checks costs the settler nothing: the transfer is simulated again just before it is sent, and skipped', async () => {
  const { chain, proxy, settler, payer, elsewhere } = await gasStage();
  const listener = await settlingListener(chain, proxy.url, settler.key);
  try {
    const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 5 });
    const invoice = created.json as { x402_url: string; receive_address: string };
    const settlerBalance = await chain.anvil.rpc<string>('eth_getBalance', [settler.account.address, 'latest']);
    // The first simulation is the service's check (verify); the payer moves the funds right after it.
    proxy.mode = { kind: 'before', method: 'eth_call', dataPrefix: TRANSFER_WITH_AUTHORIZATION, skip: 1, run: emptyWallet(chain, payer.account.address, elsewhere.account.address, 10_000_000n) };
    const answer = await x402Agent(payer.key, { network: `eip155:${chain.anvil.chainId}`, asset: chain.usdc.address }).pay(invoice.x402_url);
    assert.equal(answer.status, 502, await answer.clone().text());
    assert.equal(proxy.mode.kind, 'pass', 'the payer moved the funds between the checks and the send');
    assert.equal(await chain.usdc.balanceOf(elsewhere.account.address), 10_000_000n);
    assert.equal(Number(await chain.anvil.rpc<string>('eth_getTransactionCount', [settler.account.address, 'pending'])), 0, 'the settler sent nothing');
    assert.equal(await chain.anvil.rpc<string>('eth_getBalance', [settler.account.address, 'latest']), settlerBalance, 'and spent no gas');
    assert.equal(await chain.usdc.balanceOf(invoice.receive_address), 0n);
  } finally {
    await listener.stop({ graceMs: 0 });
    await proxy.close();
    await chain.close();
  }
});

test('settler gas budget: a payer who moves the funds after the last simulation makes one settlement revert; its gas counts, and past X402_SETTLER_GAS_BUDGET (per invoice, then per hour) settling pauses with reason settler_gas_budget before anything is sent; /health and /metrics show spend and reverts', async () => {
  const { chain, proxy, settler, payer, elsewhere } = await gasStage();
  // One settlement of gas an invoice, and an hour.
  const listener = await settlingListener(chain, proxy.url, settler.key, { X402_SETTLER_GAS_BUDGET: '100000,100000' });
  const agent = x402Agent(payer.key, { network: `eip155:${chain.anvil.chainId}`, asset: chain.usdc.address });
  const sentBySettler = async () => Number(await chain.anvil.rpc<string>('eth_getTransactionCount', [settler.account.address, 'pending']));
  try {
    const invoice = async () => (await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 5 })).json as { x402_url: string };
    const first = await invoice();
    const firstRequirements = await requirementsOf(first.x402_url);
    // The payer's transfer lands just before the settler's: the settler's reverts on the chain.
    proxy.mode = { kind: 'before', method: 'eth_sendRawTransaction', skip: 0, run: emptyWallet(chain, payer.account.address, elsewhere.account.address, 10_000_000n) };
    const reverted = await agent.pay(first.x402_url);
    assert.equal(reverted.status, 502, await reverted.clone().text());
    assert.equal(await sentBySettler(), 1, 'the one transaction the budget allows');
    await chain.usdc.transfer(payer.account.address, 10_000_000n, 1);

    const second = await invoice();
    const paused: Array<[string, string]> = [];
    for (const [url, requirements] of [[first.x402_url, firstRequirements], [second.x402_url, await requirementsOf(second.x402_url)]] as const) {
      const answer = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': await handSignedPayment(payer.key, requirements) } });
      const body = (await answer.json()) as { error: { code: string; reason?: string; message: string } };
      assert.equal(answer.status, 503, JSON.stringify(body));
      assert.equal(body.error.reason, 'settler_gas_budget');
      assert.ok(Number(answer.headers.get('Retry-After')) > 0);
      paused.push([body.error.code, body.error.message]);
    }
    assert.match(paused[0]![1], /for this invoice is spent.*plain transfer/);
    assert.match(paused[1]![1], /for this hour is spent.*plain transfer/);
    assert.equal(await sentBySettler(), 1, 'nothing more was sent');

    const health = (await (await fetch(`${listener.url}/health`)).json()) as { x402: { chains: { base: { settler_gas_last_hour: string; warning: string } } } };
    assert.ok(BigInt(health.x402.chains.base.settler_gas_last_hour) > 0n);
    assert.match(health.x402.chains.base.warning, /settling is paused/);
    const metrics = await (await fetch(`${listener.url}/metrics`)).text();
    assert.match(metrics, /service_x402_settler_reverts_total\{chain="base"\} 1/);
    assert.match(metrics, /service_x402_settler_gas_total\{chain="base"\} [1-9]/);
  } finally {
    await listener.stop({ graceMs: 0 });
    await proxy.close();
    await chain.close();
  }
});
