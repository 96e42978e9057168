import type { Transaction } from 'kysely';
import type * as z from 'zod';
import { DEFAULT_EXPIRES_IN_S, type BaseXpubInvoiceCreated } from '../../../shared/index.ts';
import type { CoreTables } from '../../schema.ts';
import type { InvoiceCreation } from '../../invoices/chain-adapter.ts';
import { allocateChildIndex, insertInvoice, type InvoiceRow } from '../../invoices/invoice.repository.ts';
import { claimDerivedAddress } from '../address-claims.ts';
import { erc20TransferUri } from '../eip681.ts';
import type { EvmConfig } from '../evm-config.ts';
import { evmInvoiceOf } from '../evm-invoice.mapper.ts';
import { xpubInvoicesAt, type EvmInvoiceRow, type TransferRow } from '../evm-transfer.repository.ts';
import { evmInvoiceRow, reachesInTime, type EvmOrder, type EvmPaymentMethod } from './evm-method.ts';

/**
 * The counter of derived EVM addresses, one per key whatever the chain (kept under Base's name,
 * the only EVM chain when it began): with MERCHANT_EVM_XPUB serving several chains, an address is
 * handed to one invoice on one chain only, so a transfer to it can never be read as paying two
 * invoices on two chains. The address claims hold the same line in the database.
 */
export const EVM_ADDRESS_COUNTER = 'base';

/**
 * Derived address (EVM): each USDC invoice gets the next child address of the merchant's xpub;
 * transfers to it add up (partial payments), and one to no invoice of ours pays nothing.
 */
export const evmDerivedAddress: EvmPaymentMethod = {
  method: 'derived-address',
  addressClaim: 'derived',
  exactAmount: false,
  offers: (settings, asset) => asset === 'USDC' && settings.base.xpub !== null,
  ownedBy: 'child_index',
  owns: (invoice) => invoice.child_index !== null,
  receive: (creation, settings, order) => createDerivedInvoice(creation, settings.base, order),
  matches: reachesInTime,
  display: () => ({}),
  sourcesNeeded: (minSources) => minSources,
  async candidates(db, chain, transfers) {
    const invoices = await xpubInvoicesAt(db, chain, transfers.map((t) => ({ merchantId: t.merchant_id, address: t.to_address })));
    const byAddress = new Map(invoices.map((invoice) => [`${invoice.merchant_id}\n${invoice.receive_address}`, invoice]));
    const found = new Map<TransferRow, EvmInvoiceRow>();
    for (const transfer of transfers) {
      const invoice = byAddress.get(`${transfer.merchant_id}\n${transfer.to_address}`);
      if (invoice) found.set(transfer, invoice);
    }
    return found;
  },
};

async function createDerivedInvoice(creation: InvoiceCreation, base: EvmConfig, order: EvmOrder): Promise<z.infer<typeof BaseXpubInvoiceCreated>> {
  const xpub = base.xpub!;
  const now = creation.clock.now();
  // The response is built before the commit, so nothing it could throw leaves a stored invoice behind.
  return creation.db.transaction().execute(async (trx) => {
    await creation.beforeInsert?.(trx);
    const { index, address } = await allocateUnclaimedAddress(creation, base, trx);
    const invoice: InvoiceRow = {
      ...evmInvoiceRow(creation, base, order, now),
      receive_address: address,
      child_index: index,
      derivation_path: xpub.key.derivationPath(index),
      key_id: xpub.keyId,
      amount_units: order.units.toString(),
      nonce: null,
      expires_at: now + (order.request.expires_in ?? DEFAULT_EXPIRES_IN_S) * 1000,
    };
    await insertInvoice(trx, invoice);
    return createdDerivedInvoice(invoice, base);
  });
}

/**
 * The next child of the key whose address nobody registered as a fixed address (a Cloud
 * merchant's, or the listener's own MERCHANT_BASE_ADDRESS, claimed at start). A registered one
 * is skipped for good (the counter has moved past it): payments to it settle fixed-address
 * invoices, so it can never be an xpub invoice's too. Refusing instead would let anyone who
 * registers a future child of someone's key as a fixed address stop that key's invoices, and
 * would stop the listener's own xpub invoices for good once they reached its fixed address.
 */
async function allocateUnclaimedAddress(creation: InvoiceCreation, base: EvmConfig, trx: Transaction<CoreTables>) {
  const xpub = base.xpub!;
  for (;;) {
    const index = await allocateChildIndex(trx, EVM_ADDRESS_COUNTER, xpub.keyId);
    const address = xpub.key.address(index);
    if (await claimDerivedAddress(trx, address)) return { index, address };
    creation.logger.warn(`${base.chain} child index skipped: its address is a registered fixed address`, { child_index: index, address });
  }
}

function createdDerivedInvoice(row: InvoiceRow, base: Pick<EvmConfig, 'chainId' | 'explorerUrl'>): z.infer<typeof BaseXpubInvoiceCreated> {
  return {
    ...evmInvoiceOf(row, {}),
    asset: 'USDC',
    qr_uri: erc20TransferUri(row.token_address!, base.chainId, row.receive_address, BigInt(row.amount_units!)),
    derivation_path: row.derivation_path!,
    verify_url: `${base.explorerUrl}/address/${row.receive_address}`,
  };
}
