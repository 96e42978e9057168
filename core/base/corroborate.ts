import { getAddress } from 'ethers';
import { TRANSFER_TOPIC, type RawLog } from './chain.ts';
import { RpcError, type RpcSource } from './rpc.ts';

export interface ObservedTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  token: string;
  to: string;
  value: bigint;
}

interface Receipt {
  status: string;
  blockHash: string;
  blockNumber: string;
  logs: RawLog[];
}

/**
 * Whether `source` independently reports the same Transfer (same block hash, log index, token,
 * recipient and value, in a successful transaction) with at least `confirmations` blocks.
 * An unreachable, lagging or disagreeing source simply does not count.
 */
export async function sourceConfirms(source: RpcSource, transfer: ObservedTransfer, confirmations: number): Promise<boolean> {
  try {
    // Receipt and head in one request where the source takes batches.
    const [receipt, headHex] = (await source.batch([
      { method: 'eth_getTransactionReceipt', params: [transfer.txHash] },
      { method: 'eth_blockNumber', params: [] },
    ])) as [Receipt | null | RpcError, string | RpcError];
    if (receipt instanceof RpcError || headHex instanceof RpcError) return false;
    if (!receipt || receipt.status !== '0x1' || receipt.blockHash !== transfer.blockHash) return false;
    const log = receipt.logs.find((l) => Number(l.logIndex) === transfer.logIndex);
    if (!log || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) return false;
    if (getAddress(log.address) !== transfer.token) return false;
    if (getAddress(`0x${log.topics[2].slice(-40)}`) !== transfer.to || BigInt(log.data) !== transfer.value) return false;
    return Number(headHex) - Number(receipt.blockNumber) + 1 >= confirmations;
  } catch {
    return false;
  }
}
