import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { DEFAULT_EXPIRES_IN_S, type CreateInvoiceRequest, type NumberTexts, type StoredInvoice } from '../../shared/index.ts';
import type { AccountKey } from '../btc/account-key.ts';
import { derivationPath } from '../btc/account-key.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { createBaseInvoice, type BaseInvoiceDeps } from '../base/base-invoices.ts';
import { parseCreateInvoiceRequest } from './create-request.ts';
import { rowToCreatedBtcInvoice, rowToStoredInvoice } from './invoice.mapper.ts';
import { allocateChildIndex, expireIfPending, findInvoice, insertInvoice, type InvoiceRow } from './invoice.repository.ts';

export interface BtcReceiver {
  accountKey: AccountKey;
  explorerUrl: string;
  /** Address of receive-chain child `index`; may be served from a pre-derived buffer or a worker thread. */
  addressAt(index: number): string | Promise<string>;
  /** Told after each allocation, so a buffer can derive ahead of the next request. */
  allocated?(index: number): void;
}

/** Whose invoice is being created: the merchant and its receive methods, given per call. */
export interface MerchantContext {
  merchantId: string;
  btc: BtcReceiver | null;
  base?: Omit<BaseInvoiceDeps, 'db' | 'clock' | 'logger' | 'merchantId' | 'newInvoiceId' | 'beforeInsert'> | null;
  /**
   * Runs inside the transaction that stores the invoice, before the insert: a throw (a plan cap)
   * rolls back the index allocation and stores nothing.
   */
  beforeInsert?: (trx: Transaction<CoreTables>) => Promise<void>;
}

export interface InvoiceEngineDeps {
  db: Kysely<CoreTables>;
  clock: Clock;
  logger: Logger;
}

export type InvoiceServiceDeps = InvoiceEngineDeps & Omit<MerchantContext, 'beforeInsert'>;

export function newInvoiceId(): string {
  return `inv_${randomBytes(12).toString('base64url')}`;
}

/** The invoicing engine, for any merchant: the merchant context comes with each call. */
export function createInvoiceEngine(deps: InvoiceEngineDeps) {
  const { db, clock, logger } = deps;

  async function createBtc(merchant: MerchantContext, request: CreateInvoiceRequest, btc: BtcReceiver) {
    const { merchantId } = merchant;
    const now = clock.now();
    const expiresInS = request.expires_in ?? DEFAULT_EXPIRES_IN_S;
    // The response is built before the commit: whatever fails, the index goes back with the row.
    const created = await db.transaction().execute(async (trx) => {
      await merchant.beforeInsert?.(trx);
      const index = await allocateChildIndex(trx, 'btc', btc.accountKey.keyId);
      const invoice: InvoiceRow = {
        invoice_id: newInvoiceId(),
        merchant_id: merchantId,
        chain: 'btc',
        asset: 'BTC',
        network: btc.accountKey.network,
        receive_address: await btc.addressAt(index),
        child_index: index,
        derivation_path: derivationPath(btc.accountKey, index),
        key_id: btc.accountKey.keyId,
        amount_sats: request.amount_sats ?? 0,
        amount_units: null,
        token_address: null,
        nonce: null,
        amount_usd: null,
        memo: request.memo ?? null,
        status: 'pending',
        tx_hash: null,
        paid_at: null,
        expires_at: now + expiresInS * 1000,
        created_at: now,
        updated_at: now,
        address_duplicate_of: null,
      };
      await insertInvoice(trx, invoice);
      return rowToCreatedBtcInvoice(invoice, btc.explorerUrl);
    });
    btc.allocated?.(created.child_index ?? 0);
    return created;
  }

  /** Reads an invoice row; a pending one past its expiry is flipped to expired on the way. */
  async function find(merchantId: string, invoiceId: string): Promise<InvoiceRow> {
    let row: InvoiceRow | undefined;
    try {
      row = await findInvoice(db, merchantId, invoiceId);
      const now = clock.now();
      if (row && row.status === 'pending' && row.expires_at <= now) {
        await expireIfPending(db, merchantId, invoiceId, now);
        row = await findInvoice(db, merchantId, invoiceId);
      }
    } catch (error) {
      logger.error('invoice lookup failed', { error, invoice_id: invoiceId });
      throw new ServiceError('lookup_failed', 'The invoice could not be read. Retry shortly.');
    }
    if (!row) throw new ServiceError('not_found', 'No such invoice.');
    return row;
  }

  return {
    /** `numberTexts`: the body's numbers as the client wrote them (from the HTTP edge), so money stays exact. */
    async create(merchant: MerchantContext, body: unknown, numberTexts?: NumberTexts) {
      const request = parseCreateInvoiceRequest(body, (chain) => (chain === 'btc' ? merchant.btc !== null : Boolean(merchant.base)), numberTexts);
      try {
        if (request.chain === 'base') {
          const baseDeps = { db, clock, logger, merchantId: merchant.merchantId, newInvoiceId, beforeInsert: merchant.beforeInsert, ...merchant.base! };
          return await createBaseInvoice(baseDeps, request);
        }
        return await createBtc(merchant, request, merchant.btc!);
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        logger.error('invoice creation failed', { error });
        throw new ServiceError('create_failed', 'The invoice could not be created; nothing was stored. Retry shortly.');
      }
    },

    /** The stored invoice, in the API's shape. */
    async get(merchantId: string, invoiceId: string): Promise<StoredInvoice> {
      return rowToStoredInvoice(await find(merchantId, invoiceId));
    },

    /** The stored row behind `get`, for views that need columns the API read leaves out. */
    find,
  };
}

export type InvoiceEngine = ReturnType<typeof createInvoiceEngine>;

/** The listener's engine: one merchant, configured at start. */
export function createInvoiceService(deps: InvoiceServiceDeps) {
  const engine = createInvoiceEngine(deps);
  const merchant: MerchantContext = { merchantId: deps.merchantId, btc: deps.btc, base: deps.base };
  return {
    create: (body: unknown, numberTexts?: NumberTexts) => engine.create(merchant, body, numberTexts),
    get: (invoiceId: string) => engine.get(deps.merchantId, invoiceId),
    find: (invoiceId: string) => engine.find(deps.merchantId, invoiceId),
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
