import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { chainFacts, DEFAULT_CHAIN, type ChainName, type NumberTexts, type StoredInvoice } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import { asServiceError, ServiceError } from '../errors.ts';
import { AmountError } from './amount-error.ts';
import type { Logger } from '../log.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { chainRegistry, type ChainAdapter, type ChainReceiver } from './chain-adapter.ts';
import { parseCreateInvoiceRequest } from './create-request.ts';
import type { ExpirySweeper } from './expiry-sweeper.ts';
import type { StatusFeed } from './status-feed.ts';
import { expireIfPending, findInvoice, type InvoiceRow } from './invoice.repository.ts';
import { noShopColumns } from './invoice.tables.ts';
import { orderColumnsOf } from './order-fields.ts';
import { resolvePrice } from './fiat-price.ts';
import type { Rates } from '../rates/rates.ts';

/** Whose invoice is being created: the merchant and its receive method per chain, given per call. */
export interface MerchantContext {
  merchantId: string;
  /** The chains the merchant receives on; a chain left out is disabled for it. */
  receivers: Partial<Record<string, ChainReceiver>>;
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
  /** The chains the edition serves; a stored invoice of a chain not among them cannot be read. */
  chains: readonly ChainAdapter[];
  metrics?: ServiceMetrics;
  /** Where status changes are published (the lazy expiry on read is one). */
  feed: StatusFeed;
  /** Told of each new invoice's expiry, so it is published when it lapses. */
  expiry?: Pick<ExpirySweeper, 'created'>;
  /** Where an agent pays the invoice besides its address: the x402 payment method's URL, or null (core/x402). */
  x402Url?: (invoice: PayableFacts) => string | null;
  /** Whether a return link may be plain http to a loopback host: outside production only (default: no). */
  loopbackReturnLinks?: boolean;
  /** The exchange rates an invoice priced in a fiat currency is converted at; null: none configured (such invoices are refused). */
  rates?: Pick<Rates, 'rate'> | null;
}

/** What a payment method needs of an invoice to say whether it can pay it. */
export type PayableFacts = Pick<StoredInvoice, 'invoice_id' | 'chain' | 'asset' | 'status' | 'expires_at'>;

export type InvoiceServiceDeps = InvoiceEngineDeps & Omit<MerchantContext, 'beforeInsert'>;

/** A chain the contract knows but this edition serves no adapter for: disabled, with the chain's code. */
const notServed = (chain: ChainName) =>
  new ServiceError(chainFacts[chain].disabledCode, `${chainFacts[chain].name} is not served here.`);

export function newInvoiceId(): string {
  return `inv_${randomBytes(12).toString('base64url')}`;
}

/** The invoicing engine, for any merchant: the merchant context comes with each call. */
export function createInvoiceEngine(deps: InvoiceEngineDeps) {
  const { db, clock, logger } = deps;
  const chains = chainRegistry(deps.chains);
  const expiryGuards = deps.chains.map((chain) => chain.paymentSeenBeforeExpiry);
  const receiverOf = (merchant: MerchantContext, chain: string) => (chains.has(chain) ? merchant.receivers[chain] : undefined);
  const withPaymentUrls = <T extends PayableFacts>(invoice: T): T => ({ ...invoice, x402_url: deps.x402Url?.(invoice) ?? null });

  /** Flips a pending invoice past its expiry unless a chain saw a payment toward it in time. */
  const expireIfLapsed = async (merchantId: string, invoiceId: string, now: number): Promise<void> => {
    const expired = await deps.feed.transaction(db, async (trx, changed) => {
      const flipped = await expireIfPending(trx, expiryGuards, merchantId, invoiceId, now);
      if (flipped) changed({ invoice_id: invoiceId, merchant_id: merchantId, status: 'expired', at: now });
      return flipped;
    });
    if (expired) deps.metrics?.invoiceTransitions.inc({ chain: expired.chain, asset: expired.asset, status: 'expired' });
  };

  /** Reads an invoice row; a pending one past its expiry is flipped to expired on the way. */
  async function find(merchantId: string, invoiceId: string): Promise<InvoiceRow> {
    let row: InvoiceRow | undefined;
    try {
      row = await findInvoice(db, merchantId, invoiceId);
      const now = clock.now();
      if (row && row.status === 'pending' && row.expires_at <= now) {
        await expireIfLapsed(merchantId, invoiceId, now);
        row = await findInvoice(db, merchantId, invoiceId);
      }
    } catch (error) {
      logger.error('invoice lookup failed', { error, invoice_id: invoiceId });
      throw asServiceError(error) ?? new ServiceError('lookup_failed', 'The invoice could not be read. Retry shortly.');
    }
    if (!row) throw new ServiceError('not_found', 'No such invoice.');
    return row;
  }

  return {
    /** `numberTexts`: the body's numbers as the client wrote them (from the HTTP edge), so money stays exact. */
    async create(merchant: MerchantContext, body: unknown, numberTexts?: NumberTexts) {
      const whyDisabled = (chain: ChainName) => (receiverOf(merchant, chain) ? null : (chains.get(chain)?.disabled() ?? notServed(chain)));
      const parsed = parseCreateInvoiceRequest(body, whyDisabled, numberTexts);
      // The order fields are judged before a fiat price asks the rate sources anything.
      const orderColumns = orderColumnsOf(parsed, deps.loopbackReturnLinks ?? false);
      const { request, columns: priceColumns } = await resolvePrice(deps.rates ?? null, parsed);
      const receiver = receiverOf(merchant, request.chain ?? DEFAULT_CHAIN)!;
      const shopColumns = { ...noShopColumns, ...orderColumns, ...priceColumns };
      try {
        const { merchantId, beforeInsert } = merchant;
        const invoice = await receiver.create({ db, clock, logger, merchantId, newInvoiceId, beforeInsert, shopColumns }, request);
        deps.metrics?.invoicesCreated.inc({ chain: invoice.chain, asset: invoice.asset });
        deps.expiry?.created(Date.parse(invoice.expires_at));
        return withPaymentUrls(invoice);
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        logger.error('invoice creation failed', { error });
        throw asServiceError(error) ?? new ServiceError('create_failed', 'The invoice could not be created; nothing was stored. Retry shortly.');
      }
    },

    /** The stored invoice, in the API's shape. */
    async get(merchantId: string, invoiceId: string): Promise<StoredInvoice> {
      const row = await find(merchantId, invoiceId);
      const chain = chains.get(row.chain);
      if (!chain) throw new Error(`no adapter for chain ${row.chain}`);
      try {
        return withPaymentUrls(chain.toStoredInvoice(row));
      } catch (error) {
        if (!(error instanceof AmountError)) throw error;
        logger.error('stored invoice unreadable', { invoice_id: invoiceId, amount_error: error.code, error });
        throw new ServiceError('lookup_failed', 'The invoice could not be read.');
      }
    },

    /** The stored row behind `get`, for views that need columns the API read leaves out. */
    find,

    expireIfLapsed,
  };
}

export type InvoiceEngine = ReturnType<typeof createInvoiceEngine>;

/** One merchant's invoices: the listener's, whose merchant and receivers are configured at start. */
export function merchantInvoices(engine: InvoiceEngine, merchant: MerchantContext) {
  return {
    create: (body: unknown, numberTexts?: NumberTexts) => engine.create(merchant, body, numberTexts),
    get: (invoiceId: string) => engine.get(merchant.merchantId, invoiceId),
    find: (invoiceId: string) => engine.find(merchant.merchantId, invoiceId),
  };
}

/** An engine of its own for one merchant (tests of a single chain). */
export function createInvoiceService(deps: InvoiceServiceDeps) {
  return merchantInvoices(createInvoiceEngine(deps), { merchantId: deps.merchantId, receivers: deps.receivers });
}

export type InvoiceService = ReturnType<typeof merchantInvoices>;
