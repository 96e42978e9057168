import type { Transaction } from 'kysely';
import { DEFAULT_EXPIRES_IN_S, type CreateInvoiceRequest } from '../../shared/index.ts';
import type { CoreTables } from '../schema.ts';
import { ServiceError } from '../errors.ts';
import type { InvoiceCreation } from '../invoices/chain-adapter.ts';
import { allocateChildIndex, insertInvoice, type InvoiceRow } from '../invoices/invoice.repository.ts';
import { claimDerivedAddress, claimOf } from './address-claims.ts';
import { AmountError, MAX_TOKEN_UNITS, usdTextToUnits } from './amount.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { EvmConfig } from './evm-config.ts';
import { rowToCreatedEvmFixedInvoice, rowToCreatedEvmXpubInvoice } from './evm-invoice.mapper.ts';
import { DEFAULT_NONCE_DIGITS, FIXED_INVOICE_LIFETIME_MS, NONCE_QUARANTINE_MS, freeNonces, maxNonce, roundedBaseUnits } from './nonce.ts';
import { assetOf, type TokenSymbol } from './tokens.ts';

/** A merchant's Base receive method. */
export interface EvmReceiverOptions {
  base: EvmConfig;
  /** Fixed-address nonce digits; tests shrink the pool to reach exhaustion quickly. */
  nonceDigits?: number;
  quarantineMs?: number;
}

export type EvmInvoiceDeps = InvoiceCreation & EvmReceiverOptions;

/** Creates a Base invoice. `request.amount_usd` is exact decimal text, turned into token units once, here. */
export async function createEvmInvoice(deps: EvmInvoiceDeps, request: CreateInvoiceRequest) {
  const amountText = requiredAmount(request.amount_usd, 'amount_usd', 'new');
  const { base } = deps;
  const symbol: TokenSymbol = request.asset ?? 'usdc';
  const token = base.tokens.get(symbol);
  if (!token) throw new ServiceError('asset_disabled', `${symbol} is not enabled on ${base.chain} (add it to the chain's token list, e.g. MERCHANT_EVM_TOKENS).`);
  let units: bigint;
  try {
    units = usdTextToUnits(amountText);
  } catch (error) {
    if (error instanceof AmountError) throw new ServiceError('invalid_amount', `${error.message} (${error.code})`);
    throw error;
  }
  const useXpub = symbol === 'usdc' && base.xpub !== null;
  if (!useXpub && base.fixedAddress === null) {
    throw new ServiceError('asset_disabled', `${symbol} needs a fixed receive address (MERCHANT_EVM_ADDRESS or the chain's own, e.g. MERCHANT_BASE_ADDRESS).`);
  }
  const common = { symbol, token, units, amountText };
  return useXpub ? createXpubInvoice(deps, request, common) : createFixedInvoice(deps, common);
}

interface Common {
  symbol: TokenSymbol;
  token: string;
  units: bigint;
  amountText: string;
}

function baseRow(deps: EvmInvoiceDeps, common: Common, now: number): Omit<InvoiceRow, 'receive_address' | 'child_index' | 'derivation_path' | 'key_id' | 'amount_units' | 'nonce' | 'expires_at'> {
  return {
    invoice_id: deps.newInvoiceId(),
    merchant_id: deps.merchantId,
    chain: deps.base.chain,
    asset: assetOf(common.symbol),
    network: String(deps.base.chainId),
    amount_sats: null,
    token_address: common.token,
    amount_usd: common.amountText,
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    created_at: now,
    updated_at: now,
    address_duplicate_of: null,
  };
}

async function createXpubInvoice(deps: EvmInvoiceDeps, request: CreateInvoiceRequest, common: Common) {
  const xpub = deps.base.xpub!;
  const now = deps.clock.now();
  // The response is built before the commit, so nothing it could throw leaves a stored invoice behind.
  return deps.db.transaction().execute(async (trx) => {
    await deps.beforeInsert?.(trx);
    const { index, address } = await allocateUnclaimedAddress(deps, trx, xpub);
    const invoice: InvoiceRow = {
      ...baseRow(deps, common, now),
      receive_address: address,
      child_index: index,
      derivation_path: xpub.key.derivationPath(index),
      key_id: xpub.keyId,
      amount_units: common.units.toString(),
      nonce: null,
      expires_at: now + (request.expires_in ?? DEFAULT_EXPIRES_IN_S) * 1000,
    };
    await insertInvoice(trx, invoice);
    return rowToCreatedEvmXpubInvoice(invoice, deps.base.chainId, deps.base.explorerUrl);
  });
}

/**
 * The counter of derived EVM addresses, one per key whatever the chain (kept under Base's name,
 * the only EVM chain when it began): with MERCHANT_EVM_XPUB serving several chains, an address is
 * handed to one invoice on one chain only, so a transfer to it can never be read as paying two
 * invoices on two chains. The address claims below hold the same line in the database.
 */
export const EVM_ADDRESS_COUNTER = 'base';

/**
 * The next child of the key whose address nobody registered as a fixed address (a Cloud
 * merchant's, or the listener's own MERCHANT_BASE_ADDRESS, claimed at start). A registered one
 * is skipped for good (the counter has moved past it): payments to it settle fixed-address
 * invoices, so it can never be an xpub invoice's too. Refusing instead would let anyone who
 * registers a future child of someone's key as a fixed address stop that key's invoices, and
 * would stop the listener's own xpub invoices for good once they reached its fixed address.
 */
async function allocateUnclaimedAddress(deps: EvmInvoiceDeps, trx: Transaction<CoreTables>, xpub: NonNullable<EvmConfig['xpub']>) {
  for (;;) {
    const index = await allocateChildIndex(trx, EVM_ADDRESS_COUNTER, xpub.keyId);
    const address = xpub.key.address(index);
    if (await claimDerivedAddress(trx, address)) return { index, address };
    deps.logger.warn(`${deps.base.chain} child index skipped: its address is a registered fixed address`, { child_index: index, address });
  }
}

async function createFixedInvoice(deps: EvmInvoiceDeps, common: Common) {
  const digits = deps.nonceDigits ?? DEFAULT_NONCE_DIGITS;
  const quarantineMs = deps.quarantineMs ?? NONCE_QUARANTINE_MS;
  const baseUnits = roundedBaseUnits(common.units, digits);
  if (baseUnits + BigInt(maxNonce(digits)) > MAX_TOKEN_UNITS) throw new ServiceError('invalid_amount', 'amount_usd is too large');
  const now = deps.clock.now();
  const expiresAt = now + FIXED_INVOICE_LIFETIME_MS;
  const created = await deps.db.transaction().execute(async (trx) => {
    await deps.beforeInsert?.(trx);
    // Registered before the claims existed, or a signup that lost a race: the address is a derived invoice's.
    if ((await claimOf(trx, deps.base.fixedAddress!)) === 'derived') {
      throw new ServiceError('base_disabled', `The fixed receive address of this account is an address derived for another invoice; ${deps.base.chain} invoices need another receive address.`);
    }
    const invoice: Omit<InvoiceRow, 'nonce' | 'amount_units'> = {
      ...baseRow(deps, common, now),
      receive_address: deps.base.fixedAddress!,
      child_index: null,
      derivation_path: null,
      key_id: null,
      expires_at: expiresAt,
    };
    const nonce = await leaseNonce(trx, invoice.receive_address, baseUnits, digits, invoice.invoice_id, now, expiresAt + quarantineMs);
    if (nonce === null) return null;
    const full: InvoiceRow = { ...invoice, nonce, amount_units: (baseUnits + BigInt(nonce)).toString() };
    await insertInvoice(trx, full);
    return rowToCreatedEvmFixedInvoice(full, deps.base.chainId);
  });
  if (!created) {
    throw new ServiceError('capacity', 'Every nonce for this amount is reserved by open or recently ended invoices; retry shortly or vary the amount by a cent.', {
      retryAfterS: 60,
    });
  }
  return created;
}

/**
 * Reserves the lowest free nonce of `baseUnits` at `address`. The upsert only takes over a row
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
  const held = await trx
    .selectFrom('base_nonce_leases')
    .select('nonce')
    .where('address', '=', address)
    .where('base_units', '=', baseUnits.toString())
    .where('reserved_until', '>', now)
    .execute();
  const reserved = new Set(held.map((r) => baseUnits + BigInt(r.nonce)));
  for (const nonce of freeNonces(baseUnits, digits, reserved)) {
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
