import type { Transaction } from 'kysely';
import type * as z from 'zod';
import type { BaseFixedInvoiceCreated } from '../../../shared/index.ts';
import type { CoreTables } from '../../schema.ts';
import { ServiceError } from '../../errors.ts';
import type { InvoiceCreation } from '../../invoices/chain-adapter.ts';
import { insertInvoice, type InvoiceRow } from '../../invoices/invoice.repository.ts';
import { claimOf } from '../address-claims.ts';
import { MAX_TOKEN_UNITS, tokenAmountFields } from '../../invoices/token-amount.ts';
import { erc20TransferUri } from '../eip681.ts';
import { evmInvoiceOf } from '../evm-invoice.mapper.ts';
import { invoiceShopFields } from '../../invoices/shop-fields.ts';
import { fixedInvoiceMatching, type EvmInvoiceRow, type TransferRow } from '../evm-transfer.repository.ts';
import { CHAIN_CLOCK_SKEW_MS, DEFAULT_NONCE_DIGITS, FIXED_INVOICE_LIFETIME_MS, NONCE_QUARANTINE_MS, maxNonce, noncesToTry, roundedBaseUnits } from '../nonce.ts';
import { evmInvoiceRow, reachesInTime, type EvmOrder, type EvmPaymentMethod, type EvmReceiverOptions } from './evm-method.ts';

/**
 * Fixed address with an amount nonce (EVM): every invoice shares the merchant's one address, and
 * the exact amount (nonce.ts) tells them apart. Only a transfer of exactly that amount, mined
 * while the invoice was open (from its creation less CHAIN_CLOCK_SKEW_MS to its expiry), pays; one
 * matching no open invoice is reported as payment.orphan.
 */
export const evmFixedAddress: EvmPaymentMethod = {
  method: 'fixed-address',
  addressClaim: 'fixed',
  exactAmount: true,
  offers: (settings) => settings.base.fixedAddress !== null,
  ownedBy: 'nonce',
  owns: (invoice) => invoice.nonce !== null,
  receive: createFixedInvoice,
  // Only a transfer mined after the invoice was created (give or take the clocks' skew): an older
  // one of the same amount paid an earlier invoice of that amount, or nobody.
  matches: (invoice, payment) =>
    reachesInTime(invoice, payment) &&
    Number(payment.block_time) >= Number(invoice.created_at) - CHAIN_CLOCK_SKEW_MS &&
    invoice.amount_units !== null &&
    BigInt(payment.value) === BigInt(invoice.amount_units),
  display: (invoice) => ({ mode: 'fixed-address', nonce: invoice.nonce!, token_address: invoice.token_address! }),
  // An exact amount anyone can send: never trusted on one source's word.
  sourcesNeeded: (minSources) => Math.max(2, minSources),
  async candidates(db, _chain, transfers) {
    const found = new Map<TransferRow, EvmInvoiceRow>();
    for (const transfer of transfers) {
      const invoice = await fixedInvoiceMatching(db, transfer);
      if (invoice) found.set(transfer, invoice);
    }
    return found;
  },
};

async function createFixedInvoice(creation: InvoiceCreation, settings: EvmReceiverOptions, order: EvmOrder): Promise<z.infer<typeof BaseFixedInvoiceCreated>> {
  const { base } = settings;
  const digits = settings.nonceDigits ?? DEFAULT_NONCE_DIGITS;
  const quarantineMs = settings.quarantineMs ?? NONCE_QUARANTINE_MS;
  const baseUnits = roundedBaseUnits(order.units, digits);
  if (baseUnits + BigInt(maxNonce(digits)) > MAX_TOKEN_UNITS) throw new ServiceError('invalid_amount', 'amount_usd is too large');
  const now = creation.clock.now();
  const expiresAt = now + FIXED_INVOICE_LIFETIME_MS;
  const created = await creation.db.transaction().execute(async (trx) => {
    await creation.beforeInsert?.(trx);
    // Registered before the claims existed, or a signup that lost a race: the address is a derived invoice's.
    if ((await claimOf(trx, base.fixedAddress!)) === 'derived') {
      throw new ServiceError('base_disabled', `The fixed receive address of this account is an address derived for another invoice; ${base.chain} invoices need another receive address.`);
    }
    const invoice: Omit<InvoiceRow, 'nonce' | 'amount_units'> = {
      ...evmInvoiceRow(creation, base, order, now),
      receive_address: base.fixedAddress!,
      child_index: null,
      derivation_path: null,
      key_id: null,
      expires_at: expiresAt,
    };
    const nonce = await leaseNonce(trx, invoice.receive_address, baseUnits, digits, invoice.invoice_id, now, expiresAt + quarantineMs);
    if (nonce === null) return null;
    const full: InvoiceRow = { ...invoice, nonce, amount_units: (baseUnits + BigInt(nonce)).toString() };
    await insertInvoice(trx, full);
    return createdFixedInvoice(full, base.chainId);
  });
  if (!created) {
    throw new ServiceError('capacity', 'Every nonce for this amount is reserved by open or recently ended invoices; retry shortly or vary the amount by a cent.', {
      retryAfterS: 60,
    });
  }
  return created;
}

/**
 * Reserves a free nonce of `baseUnits` at `address`, the least recently used first (noncesToTry). The upsert only takes over a row
 * whose reservation has lapsed, and the primary key makes two concurrent requests for the same
 * nonce collide in the database, so an exact amount at an address is never held by two invoices at
 * once, even of two merchants who registered the same fixed address.
 */
async function leaseNonce(
  trx: Transaction<CoreTables>,
  address: string,
  baseUnits: bigint,
  digits: number,
  invoiceId: string,
  now: number,
  reservedUntil: number,
): Promise<number | null> {
  const leases = await trx.selectFrom('base_nonce_leases').select(['nonce', 'reserved_until']).where('address', '=', address).where('base_units', '=', baseUnits.toString()).execute();
  for (const nonce of noncesToTry(digits, leases, now)) {
    const taken = await trx
      .insertInto('base_nonce_leases')
      .values({ address, base_units: baseUnits.toString(), nonce, invoice_id: invoiceId, reserved_until: reservedUntil })
      .onConflict((oc) =>
        oc
          .columns(['address', 'base_units', 'nonce'])
          .doUpdateSet({ invoice_id: invoiceId, reserved_until: reservedUntil })
          .where('base_nonce_leases.reserved_until', '<=', now),
      )
      .returning('nonce')
      .executeTakeFirst();
    if (taken) return nonce;
  }
  return null;
}

function createdFixedInvoice(row: InvoiceRow, chainId: number): z.infer<typeof BaseFixedInvoiceCreated> {
  const invoice = evmInvoiceOf(row, {});
  return {
    invoice_id: invoice.invoice_id,
    chain: invoice.chain,
    asset: invoice.asset,
    mode: 'fixed-address',
    nonce: row.nonce!,
    token_address: row.token_address!,
    receive_address: invoice.receive_address,
    amount_usd: invoice.amount_usd,
    ...tokenAmountFields(BigInt(row.amount_units!)),
        status: invoice.status,
    expires_at: invoice.expires_at,
    qr_uri: erc20TransferUri(row.token_address!, chainId, row.receive_address, BigInt(row.amount_units!)),
    ...invoiceShopFields(row),
    x402_url: invoice.x402_url,
  };
}
