import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anvilClient, startAnvil } from '../../../sandbox/anvil.ts';
import { deployTestToken } from '../../../sandbox/test-token.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';

/**
 * The root cause of the Base watcher tests that hung for 90 s on a loaded machine: on a busy
 * machine anvil can answer a receipt request before its auto-miner has mined the transaction.
 * ethers' `wait()` then keeps that null answer (its 250 ms request cache), takes the node's
 * block number, which by then already holds the transaction's block, as its starting point,
 * and waits for a newer block that an auto-mining node with nothing more to mine never makes.
 * Here the proxy gives one such answer per transaction on every machine, idle or loaded: one is
 * enough (through the same proxy, ethers' `wait()` alone was still pending after 10 s).
 */
test('a token transfer resolves when the node first answers that the transaction is not mined yet', { timeout: 60_000 }, async () => {
  const anvil = await startAnvil();
  const proxy = await startRpcProxy(anvil.url);
  const viaProxy = anvilClient(proxy.url, anvil.chainId);
  try {
    proxy.mode = { kind: 'unmined-receipts', times: 1 };
    const token = await deployTestToken(viaProxy, 'USDC', { fundAccounts: 1 });
    const paid = await token.transfer('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 1_000_000n);
    const receipt = await anvil.rpc<{ blockNumber: string; status: string }>('eth_getTransactionReceipt', [paid.txHash]);
    assert.equal(Number(receipt.blockNumber), paid.blockNumber);
    assert.equal(receipt.status, '0x1');
    assert.equal(await token.balanceOf('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), 1_000_000n);
  } finally {
    viaProxy.provider.destroy();
    await proxy.close();
    await anvil.stop();
  }
});
