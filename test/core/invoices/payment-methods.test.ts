import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { btcPaymentMethods } from '../../../core/btc/methods/btc-methods.ts';
import type { BtcReceiverOptions } from '../../../core/btc/methods/derived-address.ts';
import type { EvmTransfersTable } from '../../../core/evm/evm.tables.ts';
import type { EvmReceiverOptions } from '../../../core/evm/methods/evm-method.ts';
import { evmMethodOfClaim, evmPaymentMethods, rowToEvmInvoice } from '../../../core/evm/methods/evm-methods.ts';
import { planSettlement, type SettlementFacts } from '../../../core/evm/settlement.ts';
import type { TransferRow } from '../../../core/evm/evm-transfer.repository.ts';
import type { InvoiceRow } from '../../../core/invoices/invoice.repository.ts';
import { methodFor, methodOf, offeredMethodIds } from '../../../core/invoices/payment-method.ts';
import { x402Method } from '../../../core/x402/x402-method.ts';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const FIXED = '0x1111111111111111111111111111111111111111';
const DERIVED = '0x2222222222222222222222222222222222222222';
const PAYER = '0x3333333333333333333333333333333333333333';
const EXPIRES = Date.UTC(2026, 5, 1, 13);

const evmSettings = (xpub: boolean, fixed: boolean) => ({ base: { xpub: xpub ? {} : null, fixedAddress: fixed ? FIXED : null } }) as unknown as EvmReceiverOptions;

function invoice(fields: Partial<InvoiceRow>): InvoiceRow {
  return {
    invoice_id: 'inv',
    merchant_id: 'm1',
    chain: 'base',
    asset: 'USDC',
    network: '8453',
    receive_address: DERIVED,
    child_index: null,
    derivation_path: null,
    key_id: null,
    amount_sats: null,
    amount_units: '12340417',
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: EXPIRES,
    created_at: EXPIRES - 3_600_000,
    updated_at: EXPIRES - 3_600_000,
    token_address: USDC,
    nonce: null,
    amount_usd: '12.34',
    address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
    ...fields,
  };
}

const derivedInvoice = invoice({ invoice_id: 'derived', receive_address: DERIVED, child_index: 7, derivation_path: "m/44'/60'/0'/0/7", key_id: 'k' });
const fixedInvoice = invoice({ invoice_id: 'fixed', receive_address: FIXED, nonce: 417 });

function transfer(to: string, value: string, logIndex = 0): TransferRow {
  const row: Omit<EvmTransfersTable, 'chain'> & { chain: string } = {
    merchant_id: 'm1',
    chain: 'base',
    tx_hash: `0x${String(logIndex).padStart(64, '0')}`,
    log_index: logIndex,
    block_number: 100,
    block_hash: '0xblock',
    block_time: EXPIRES - 60_000,
    token_address: USDC,
    from_address: PAYER,
    to_address: to,
    value,
    state: 'seen',
    invoice_id: null,
    detected_at: EXPIRES - 60_000,
  };
  return row;
}

/** Facts as settlement reads them: the method by the address's claim, the candidates as given, every transfer verified. */
function facts(candidates: Array<[TransferRow, InvoiceRow]>, ready: TransferRow[]): SettlementFacts {
  return {
    methodOf: (t) => evmMethodOfClaim(t.to_address === FIXED ? 'fixed' : 'derived'),
    candidates: new Map(candidates),
    applied: new Map(),
    verified: new Map(ready.map((t) => [`${t.merchant_id}\n${t.tx_hash}\n${t.log_index}`, 'sources:2'])),
  };
}

describe('payment methods (chain × method)', () => {
  it('each chain offers its PaymentMethodIds by the merchant settings', () => {
    const evm = (xpub: boolean, fixed: boolean) => offeredMethodIds('base', evmPaymentMethods, evmSettings(xpub, fixed), ['USDC', 'USDT']);
    assert.deepEqual(evm(true, true), ['base:derived-address', 'base:fixed-address']);
    assert.deepEqual(evm(true, false), ['base:derived-address']);
    assert.deepEqual(evm(false, true), ['base:fixed-address']);
    assert.deepEqual(evm(false, false), []);
    const x402 = x402Method({ chains: new Map([['base', {}]]), now: () => 0, resourceUrl: (id) => `https://pay.example/x402/${id}` });
    assert.deepEqual(offeredMethodIds('base', [x402], {}, ['USDC', 'USDT']), ['base:x402']);
    assert.deepEqual(offeredMethodIds('eth', [x402], undefined, ['USDC', 'USDT']), [], 'no settlement set up on the chain: no x402');
    assert.deepEqual(offeredMethodIds('btc', btcPaymentMethods, {} as BtcReceiverOptions, ['BTC']), ['btc:derived-address']);
  });

  it('the receiver takes the first method the settings offer for the asset', () => {
    assert.equal(methodFor(evmPaymentMethods, evmSettings(true, true), 'USDC')?.method, 'derived-address');
    assert.equal(methodFor(evmPaymentMethods, evmSettings(true, true), 'USDT')?.method, 'fixed-address', 'USDT is served at a fixed address only');
    assert.equal(methodFor(evmPaymentMethods, evmSettings(true, false), 'USDT'), undefined);
  });

  it('a stored invoice is shown by the method that created it', () => {
    assert.equal(methodOf(evmPaymentMethods, derivedInvoice).method, 'derived-address');
    assert.equal(methodOf(evmPaymentMethods, fixedInvoice).method, 'fixed-address');
    assert.equal('nonce' in rowToEvmInvoice(derivedInvoice), false);
    assert.deepEqual(
      { mode: rowToEvmInvoice(fixedInvoice).mode, nonce: rowToEvmInvoice(fixedInvoice).nonce },
      { mode: 'fixed-address', nonce: 417 },
    );
  });

  it("each EVM method's matching rule matches only its own invoices", () => {
    const fixed = evmMethodOfClaim('fixed');
    const derived = evmMethodOfClaim('derived');
    assert.equal(fixed.matches(fixedInvoice, transfer(FIXED, '12340417')), true, 'the exact amount at the fixed address');
    assert.equal(fixed.matches(fixedInvoice, transfer(FIXED, '12340418')), false, 'a wrong nonce pays nothing');
    assert.equal(fixed.matches(derivedInvoice, transfer(FIXED, '12340417')), false);
    assert.equal(derived.matches(derivedInvoice, transfer(DERIVED, '5')), true, 'any part at its own address');
    assert.equal(derived.matches(fixedInvoice, transfer(DERIVED, '12340417')), false);
    assert.equal(derived.matches(derivedInvoice, { ...transfer(DERIVED, '12340417'), block_time: EXPIRES + 1 }), false, 'mined after expiry');
  });

  it('a fixed-address transfer with a wrong nonce never credits a derived-address invoice, and a derived transfer never a fixed one', () => {
    const wrongNonce = transfer(FIXED, '12340418', 1);
    const toDerived = transfer(DERIVED, '12340417', 2);
    // Even handed the other method's invoice as a candidate, each transfer is judged by its own address's method.
    const ready = [wrongNonce, toDerived];
    const { decisions } = planSettlement(ready, facts([[wrongNonce, derivedInvoice], [toDerived, fixedInvoice]], ready));
    assert.deepEqual(
      decisions.map((d) => ({ kind: d.kind, tx: d.transfer.log_index })),
      [
        { kind: 'orphan', tx: 1 },
        { kind: 'ignore', tx: 2 },
      ],
    );
    const right = transfer(FIXED, '12340417', 3);
    const part = transfer(DERIVED, '40417', 4);
    const plan = planSettlement([right, part], facts([[right, fixedInvoice], [part, derivedInvoice]], [right, part]));
    assert.deepEqual(
      plan.decisions.map((d) => ({ kind: d.kind, invoice: 'invoice' in d ? d.invoice.invoice_id : null })),
      [
        { kind: 'confirm', invoice: 'fixed' },
        { kind: 'apply', invoice: 'derived' },
      ],
    );
  });

  it("x402's matching rule: the signer's transfer of the amount asked, in the invoice's token, to its address", () => {
    const x402 = x402Method({ chains: new Map([['base', {}]]), now: () => 0, resourceUrl: (id) => `https://pay.example/x402/${id}` });
    const paid = { token: USDC, from: PAYER, to: DERIVED, value: 5n, payer: PAYER, amount: 5n };
    assert.equal(x402.matches(derivedInvoice, paid), true);
    assert.equal(x402.matches(derivedInvoice, { ...paid, from: FIXED }), false, 'another payer');
    assert.equal(x402.matches(derivedInvoice, { ...paid, value: 4n }), false, 'less than asked');
    assert.equal(x402.matches(fixedInvoice, paid), false, "another invoice's address");
    assert.deepEqual(x402.display(derivedInvoice), { x402_url: 'https://pay.example/x402/derived' });
    assert.deepEqual(x402.display({ ...derivedInvoice, status: 'confirmed' }), { x402_url: null });
  });
});
