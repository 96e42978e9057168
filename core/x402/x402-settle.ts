import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { eip3009ABI } from '@x402/evm';
import { erc20Abi, getAddress, parseEventLogs, type PublicClient } from 'viem';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { refused, refusalReasons, type CheckedPayment } from './authorization.ts';
import type { X402Method } from './x402-method.ts';
import { SETTLEMENT_GAS, type X402Settler } from './settlers.ts';
import type { X402SettlementRow } from './settlement.repository.ts';

const RECEIPT_POLL_MS = 200;
/**
 * Seconds our node's latest block must be past an authorization's `validBefore` before a settle
 * that never answered is taken as lapsed: the last blocks could still be replaced by a reorg with
 * an earlier timestamp, one that might include the transaction.
 */
const LAPSE_MARGIN_S = 60;
/** x402's answer for a transaction sent and not mined within the settle's wait. */
const SETTLEMENT_PENDING = 'settlement_pending';
/** x402's answer for a settlement transaction that reverted. */
const TRANSACTION_FAILED = 'invalid_exact_evm_transaction_failed';

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
  /** Gas of a transaction the settler sent: its receipt's, or SETTLEMENT_GAS when our node shows none. */
  gasUsed?: bigint;
  /** The transaction reverted (the payer's funds moved after the last simulation). */
  reverted?: boolean;
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
 * Whether the authorization a `settling` lock holds can no longer be mined: our node's latest block
 * is past its `validBefore` (EIP-3009 refuses it from then on, whatever our clock says) and its
 * nonce is still unused. A node that does not answer, or a lock taken before `valid_before` was
 * kept (held until the invoice ends), answers no.
 */
export async function authorizationLapsed(chain: X402Chain, asset: string, lock: Pick<X402SettlementRow, 'payer' | 'nonce' | 'valid_before'>, now: number): Promise<boolean> {
  if (lock.valid_before === null) return false;
  const validBefore = BigInt(lock.valid_before);
  // Not even our clock is past it: no need to ask the node.
  if (BigInt(Math.floor(now / 1000)) < validBefore + BigInt(LAPSE_MARGIN_S)) return false;
  try {
    const [block, used] = await Promise.all([
      chain.reader.getBlock({ blockTag: 'latest' }),
      chain.reader.readContract({ address: getAddress(asset), abi: eip3009ABI, functionName: 'authorizationState', args: [getAddress(lock.payer), lock.nonce as `0x${string}`] }),
    ]);
    return block.timestamp >= validBefore + BigInt(LAPSE_MARGIN_S) && !used;
  } catch {
    return false;
  }
}

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
  // From here the authorization has left for the chain, or may have: whatever the answer, it stays
  // minable (by anyone who saw it) until its validBefore, and so the invoice's lock stays with it
  // until authorizationLapsed says it can no longer be mined. Only a transfer seen paid moves it.
  progress.lockState = 'settling';
  const settled = await chain.settler.settle(payload, requirements).catch((error: unknown) => {
    // Whether it was sent is unknown: the lock stays with this payload until it lapses unmined (authorizationLapsed).
    failing('unavailable', 'x402: settle failed', error, { settler: chain.settler.kind });
    throw unavailable('The settler did not answer in time.');
  });
  const sentHash = /^0x[0-9a-fA-F]{64}$/.test(settled.transaction ?? '');
  if (!settled.success && sentHash) {
    // Sent, then pending or reverted: its gas is spent (SETTLEMENT_GAS while our node shows no receipt).
    const receipt = await chain.reader.getTransactionReceipt({ hash: settled.transaction as `0x${string}` }).catch(() => null);
    progress.gasUsed = receipt?.gasUsed ?? SETTLEMENT_GAS;
    progress.reverted = receipt ? receipt.status !== 'success' : settled.errorReason === TRANSACTION_FAILED;
  }
  if (!settled.success || !sentHash) {
    // A refusal at settle, a transaction still pending (`settlement_pending`), or one that reverted:
    // the nonce stays unused and the authorization valid, so the lock stays.
    log.warn('x402: settle answered without a payment', { reason: settled.errorReason, settler: chain.settler.kind });
    if (settled.errorReason === SETTLEMENT_PENDING) {
      progress.outcome = 'unavailable';
      throw unavailable('The settlement transaction was sent but is not mined yet; this invoice waits for it (or for its authorization to lapse).');
    }
    progress.outcome = 'failed';
    throw new ServiceError('settlement_failed', `The settlement failed: ${settled.errorMessage ?? settled.errorReason ?? 'no transaction'}.`);
  }
  const txHash = settled.transaction;
  progress.txHash = txHash;
  const seen = await minedTransfer(attempt, txHash, progress);
  if (seen !== 'paid') {
    // Reverted: the authorization is still valid (a revert uses no nonce), so the lock stays.
    if (seen !== 'reverted') progress.lockState = 'unseen';
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
async function minedTransfer({ row, chain, requirements, checked, method, receiptWaitMs }: SettlementAttempt, txHash: string, progress: SettlementProgress) {
  progress.gasUsed = SETTLEMENT_GAS;
  // Counted in polls, not read off the clock: the wait is real time whatever clock the service runs on.
  for (let poll = Math.ceil(receiptWaitMs / RECEIPT_POLL_MS); ; poll--) {
    const receipt = await chain.reader.getTransactionReceipt({ hash: txHash as `0x${string}` }).catch(() => null);
    if (receipt) {
      progress.gasUsed = receipt.gasUsed;
      progress.reverted = receipt.status !== 'success';
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
