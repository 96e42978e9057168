import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DEFAULT_EXPIRES_IN_S, type CreateInvoiceRequest, type StoredInvoice } from '../../shared/index.ts';
import type { AccountKey } from '../btc/account-key.ts';
import { derivationPath } from '../btc/account-key.ts';
import type { Clock } from '../clock.ts';
import type { Tables } from '../db/tables.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { createBaseInvoice, type BaseInvoiceDeps } from '../base/base-invoices.ts';
import { topLevelNumberText } from '../json-number-text.ts';
import { parseCreateInvoiceRequest } from './create-request.ts';
import { rowToCreatedBtcInvoice, rowToStoredInvoice } from './invoice.mapper.ts';
import { allocateChildIndex, expireIfPending, findInvoice, insertInvoice, type InvoiceRow } from './invoice.repository.ts';

export interface BtcReceiver {
  accountKey: AccountKey;
  explorerUrl: string;
  /** Address of receive-chain child `index`; may be served from a pre-derived buffer. */
  addressAt(index: number): string;
  /** Told after each allocation, so a buffer can derive ahead of the next request. */
  allocated?(index: number): void;
}

export interface InvoiceServiceDeps {
  db: Kysely<Tables>;
  clock: Clock;
  logger: Logger;
  merchantId: string;
  btc: BtcReceiver | null;
  base?: Omit<BaseInvoiceDeps, 'db' | 'clock' | 'merchantId' | 'newInvoiceId'> | null;
}

export function newInvoiceId(): string {
  return `inv_${randomBytes(12).toString('base64url')}`;
}

export function createInvoiceService(deps: InvoiceServiceDeps) {
  const { db, clock, logger, merchantId } = deps;

  async function createBtc(request: CreateInvoiceRequest, btc: BtcReceiver) {
    const now = clock.now();
    const expiresInS = request.expires_in ?? DEFAULT_EXPIRES_IN_S;
    const row = await db.transaction().execute(async (trx) => {
      const index = await allocateChildIndex(trx, merchantId, 'btc', btc.accountKey.keyId);
      const invoice: InvoiceRow = {
        invoice_id: newInvoiceId(),
        merchant_id: merchantId,
        chain: 'btc',
        asset: 'BTC',
        network: btc.accountKey.network,
        receive_address: btc.addressAt(index),
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
      };
      await insertInvoice(trx, invoice);
      return invoice;
    });
    btc.allocated?.(row.child_index ?? 0);
    return rowToCreatedBtcInvoice(row, btc.explorerUrl);
  }

  /** Reads an invoice row; a pending one past its expiry is flipped to expired on the way. */
  async function find(invoiceId: string): Promise<InvoiceRow> {
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
    /** `rawBody` is the request text, so amount_usd is read with the exact digits the client sent. */
    async create(body: unknown, rawBody?: string) {
      const request = parseCreateInvoiceRequest(body, (chain) => (chain === 'btc' ? deps.btc !== null : Boolean(deps.base)));
      try {
        if (request.chain === 'base') {
          const amountText = (rawBody && topLevelNumberText(rawBody, 'amount_usd')) ?? String(request.amount_usd);
          return await createBaseInvoice({ db, clock, merchantId, newInvoiceId, ...deps.base! }, request, amountText);
        }
        return await createBtc(request, deps.btc!);
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        logger.error('invoice creation failed', { error });
        throw new ServiceError('create_failed', 'The invoice could not be created; nothing was stored. Retry shortly.');
      }
    },

    /** The stored invoice, in the API's shape. */
    async get(invoiceId: string): Promise<StoredInvoice> {
      return rowToStoredInvoice(await find(invoiceId));
    },

    /** The stored row behind `get`, for views that need columns the API read leaves out. */
    find,
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
