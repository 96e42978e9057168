import type { Kysely, Transaction } from 'kysely';
import { evmChainNames } from '../../shared/index.ts';
import type { CoreTables } from '../schema.ts';

type Db = Kysely<CoreTables> | Transaction<CoreTables>;

/**
 * Who a Base address belongs to: a fixed address registered by merchants ('fixed', shared by all
 * who registered it) or one derived invoice ('derived'). The primary key is the judge: whichever
 * claims an address first keeps it, on every instance at once, so one transfer can never settle
 * a fixed-address invoice and a derived one (docs/security.md, "Invariants").
 */
export type AddressClaim = 'fixed' | 'derived';

/** Claims `address` as a derived invoice's; false when it is already claimed (a registered fixed address). */
export async function claimDerivedAddress(trx: Db, address: string): Promise<boolean> {
  const claimed = await trx
    .insertInto('base_address_claims')
    .values({ address, kind: 'derived' })
    .onConflict((oc) => oc.column('address').doNothing())
    .returning('address')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Claims `address` as a fixed receive address (shared by whoever registers it); false when a derived invoice holds it. */
export async function claimFixedAddress(trx: Db, address: string): Promise<boolean> {
  await trx
    .insertInto('base_address_claims')
    .values({ address, kind: 'fixed' })
    .onConflict((oc) => oc.column('address').doNothing())
    .execute();
  return (await claimOf(trx, address)) === 'fixed';
}

/**
 * Claims the self-hosted listener's MERCHANT_BASE_ADDRESS at start, so no xpub invoice can get it
 * (one reaching it skips that index). Returns why the listener must not start when a stored
 * derived invoice already has it (a database from before the claims, or an address changed to
 * one an invoice was given): a payment there would settle that invoice and a fixed-address one.
 */
export async function claimOwnFixedAddress(db: Kysely<CoreTables>, address: string, settingName = 'MERCHANT_BASE_ADDRESS'): Promise<string | null> {
  if (await claimFixedAddress(db, address)) return null;
  const holder = await db
    .selectFrom('invoices')
    .select(['invoice_id', 'derivation_path'])
    .where('chain', 'in', evmChainNames)
    .where('receive_address', '=', address)
    .where('child_index', 'is not', null)
    .orderBy('created_at')
    .executeTakeFirst();
  const invoice = holder ? `invoice ${holder.invoice_id} (${holder.derivation_path})` : 'a derived-address invoice';
  return `${settingName} is already the receive address of ${invoice}: a payment there would settle it and a fixed-address invoice at once. Set an address no invoice was given (another account or wallet)`;
}

export async function claimOf(db: Db, address: string): Promise<AddressClaim | undefined> {
  const row = await db.selectFrom('base_address_claims').select('kind').where('address', '=', address).executeTakeFirst();
  return row?.kind as AddressClaim | undefined;
}
