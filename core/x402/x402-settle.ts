import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { eip3009ABI } from '@x402/evm';
import { erc20Abi, getAddress, parseEventLogs, type PublicClient } from 'viem';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { refused, refusalReasons, type CheckedPayment } from './authorization.ts';
import type { X402Method } from './x402-method.ts';
import type { X402Settler } from './settlers.ts';

const RECEIPT_POLL_MS = 200;

/** One EVM chain on which invoices take x402 payments. */
export interface X402Chain {
  chainId: number;
  /** Our own node: receipts, the token's domain, nonces. The settler's word is checked here. */
  reader: PublicClient;
  settler: X402Settler;
}

export type X402Outcome = 'sent' | 'refused' | 'unavailable' | 'failed' | 'unseen' | 'replayed';

/**
 * Where a settlement attempt stands, kept up to date as it goes, so whatever it throws the caller
 * reports the outcome and leaves the lock as it must: `settling` (kept) once the settler may have
 * sent the transaction.
 */
export interface SettlementProgress {
  lockState: 'refused' | 'settling' | 'sent' | 'unseen';
  outcome: X402Outcome;
  txHash?: string;
}

export interface SettlementAttempt {
  row: InvoiceRow;
  chain: X402Chain;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  checked: CheckedPayment;
  method: X402Method;
  log: Logger;
  receiptWaitMs: number;
}

export const unavailable = (message: string) => new ServiceError('settlement_unavailable', message, { retryAfterS: 5 });

/**
 * The nonce on the chain and the settler's verify, then its settle, then the transfer read back
 * from our own node. Returns the transaction once our node shows it as this payment.
 */
export async function settleAuthorization(attempt: SettlementAttempt, progress: SettlementProgress): Promise<string> {
  const { chain, payload, requirements, checked, log } = attempt;
  const failing = (outcome: X402Outcome, message: string, error: unknown, fields: Record<string, unknown> = {}) => {
    progress.outcome = outcome;
    log.warn(message, { error, ...fields });
  };
  // Both only read: asked together.
  const [used, verified] = await Promise.all([
    chain.reader.readContract({ address: getAddress(requirements.asset), abi: eip3009ABI, functionName: 'authorizationState', args: [checked.payer, checked.authorization.nonce] }).catch((error: unknown) => {
      failing('unavailable', 'x402: the node cannot say whether the nonce is used', error);
      throw unavailable('The chain node does not answer.');
    }),
    chain.settler.verify(payload, requirements).catch((error: unknown) => {
      failing('unavailable', 'x402: verify failed', error, { settler: chain.settler.kind });
      throw unavailable('The settler does not answer.');
    }),
  ]);
  if (used) throw refused(refusalReasons.nonceUsed, 'This authorization nonce is already used on the chain.');
  if (!verified.isValid) {
    throw new ServiceError('invalid_payment', `The settler refused the payment: ${verified.invalidMessage ?? verified.invalidReason ?? 'invalid'}.`, {
      details: { reason: verified.invalidReason ?? 'invalid_payment' },
    });
  }
  progress.lockState = 'settling';
  const settled = await chain.settler.settle(payload, requirements).catch((error: unknown) => {
    // Whether it was sent is unknown: the lock stays with this payload (see STALE_LOCK_MS).
    failing('unavailable', 'x402: settle failed', error, { settler: chain.settler.kind });
    throw unavailable('The settler did not answer in time.');
  });
  if (!settled.success || !/^0x[0-9a-fA-F]{64}$/.test(settled.transaction ?? '')) {
    // A refusal at settle sends nothing, or a transaction that reverted (the nonce stays unused).
    progress.lockState = 'refused';
    progress.outcome = 'failed';
    throw new ServiceError('settlement_failed', `The settlement failed: ${settled.errorMessage ?? settled.errorReason ?? 'no transaction'}.`);
  }
  const txHash = settled.transaction;
  progress.txHash = txHash;
  const seen = await minedTransfer(attempt, txHash);
  if (seen !== 'paid') {
    progress.lockState = seen === 'reverted' ? 'refused' : 'unseen';
    progress.outcome = seen === 'reverted' ? 'failed' : 'unseen';
    log.error('x402: the settler reported a transaction the chain does not show as this payment', { tx_hash: txHash, seen: seen ?? 'not found', settler: chain.settler.kind });
    throw new ServiceError('settlement_failed', `The settlement transaction ${txHash} is not on the chain as this payment; the invoice stays pending.`);
  }
  progress.lockState = 'sent';
  progress.outcome = 'sent';
  log.info('x402: settled', { tx_hash: txHash });
  return txHash;
}

/** The transfer the settler reported, as our own node shows it, judged by x402's matching rule; null when the node does not show it (yet). */
async function minedTransfer({ row, chain, requirements, checked, method, receiptWaitMs }: SettlementAttempt, txHash: string) {
  // Counted in polls, not read off the clock: the wait is real time whatever clock the service runs on.
  for (let poll = Math.ceil(receiptWaitMs / RECEIPT_POLL_MS); ; poll--) {
    const receipt = await chain.reader.getTransactionReceipt({ hash: txHash as `0x${string}` }).catch(() => null);
    if (receipt) {
      if (receipt.status !== 'success') return 'reverted' as const;
      const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
      const amount = BigInt(requirements.amount);
      const paid = transfers.some((log) => method.matches(row, { token: log.address, from: log.args.from, to: log.args.to, value: log.args.value, payer: checked.payer, amount }));
      return paid ? ('paid' as const) : ('other' as const);
    }
    if (poll <= 0) return null;
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}
