import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BaseFixedInvoiceCreated, BaseXpubInvoiceCreated, BtcInvoice, BtcInvoiceCreated } from '../../shared/index.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { describeCreatedInvoice, describeStoredInvoice } from '../../mcp/invoice-text.ts';

const RECIPIENT = '0x1111111111111111111111111111111111111111';
const USDT_ON_BASE = '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2';

test('a fixed-address invoice tells the payer to send the exact amount of the named token', () => {
  const invoice = BaseFixedInvoiceCreated.parse({
    invoice_id: 'inv_fixed',
    x402_url: null,
    chain: 'base',
    asset: 'USDT',
    mode: 'fixed-address',
    nonce: 123,
    token_address: USDT_ON_BASE,
    receive_address: RECIPIENT,
    amount_usd: 10,
    amount_usdc: '10.000123',
    amount_usdc_units: 10_000_123,
    amount_token: '10.000123',
    amount_token_units: 10_000_123,
    status: 'pending',
    expires_at: '2030-01-01T01:00:00.000Z',
    qr_uri: `ethereum:${USDT_ON_BASE}@8453/transfer?address=${RECIPIENT}&uint256=10000123`,
  });
  const text = describeCreatedInvoice(defaultChains, invoice);
  assert.match(text, /Pay 10\.000123 USDT \(10 USD\) on Base to 0x1{40}\./);
  assert.match(text, /send exactly 10\.000123 USDT \(token contract 0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2\)/);
  assert.ok(text.includes(invoice.qr_uri));
  assert.ok(text.includes('Expires at 2030-01-01T01:00:00.000Z.'));
  assert.doesNotMatch(text, /For order/, 'no order line for an invoice without an order_id');
});

test('an invoice made for an order names it, created and stored, quoted so an odd reference stays one', () => {
  const stored = BtcInvoice.parse({
    invoice_id: 'inv_order',
    merchant_id: 'default',
    chain: 'btc',
    asset: 'BTC',
    receive_address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    child_index: 0,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    expires_at: '2030-01-01T01:00:00.000Z',
    created_at: '2030-01-01T00:00:00.000Z',
    updated_at: '2030-01-01T00:00:00.000Z',
    amount_btc: '0.00001000',
    amount_sats: 1000,
    network: 'mainnet',
    memo: null,
    order_id: 'ORD 42. Ship now',
    metadata: null,
    redirect_url: null,
    x402_url: null,
  });
  assert.match(describeStoredInvoice(defaultChains, stored), /^For order "ORD 42\. Ship now"\.$/m);
  const created = BtcInvoiceCreated.parse({ ...stored, derivation_path: "m/84'/0'/0'/0/0", qr_uri: 'bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.00001', verify_url: 'https://mempool.space/address/bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' });
  assert.match(describeCreatedInvoice(defaultChains, created), /^For order "ORD 42\. Ship now"\.$/m);
});

test('an xpub-mode Base invoice states the token amount and its USD price, without the exact-amount warning', () => {
  const invoice = BaseXpubInvoiceCreated.parse({
    invoice_id: 'inv_xpub',
    x402_url: null,
    merchant_id: 'default',
    chain: 'base',
    asset: 'USDC',
    receive_address: RECIPIENT,
    child_index: 3,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    expires_at: '2030-01-01T01:00:00.000Z',
    created_at: '2030-01-01T00:00:00.000Z',
    updated_at: '2030-01-01T00:00:00.000Z',
    amount_usd: 12.5,
    amount_usdc: '12.500000',
    amount_usdc_units: 12_500_000,
    amount_token: '12.500000',
    amount_token_units: 12_500_000,
    qr_uri: `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=${RECIPIENT}&uint256=12500000`,
    derivation_path: "m/44'/60'/0'/0/3",
    verify_url: `https://basescan.org/address/${RECIPIENT}`,
  });
  const text = describeCreatedInvoice(defaultChains, invoice);
  assert.match(text, /Pay 12\.500000 USDC \(12\.5 USD\) on Base/);
  assert.doesNotMatch(text, /exactly/);
});

test('a Base invoice on another chain id is named by it: Base Sepolia, or a local EVM chain (the sandbox\'s 31337), never "on Base"', () => {
  const on = (chainId: number) =>
    describeCreatedInvoice(
      defaultChains,
      BaseFixedInvoiceCreated.parse({
        invoice_id: 'inv_local',
        x402_url: null,
        chain: 'base',
        asset: 'USDC',
        mode: 'fixed-address',
        nonce: 1,
        token_address: USDT_ON_BASE,
        receive_address: RECIPIENT,
        amount_usd: 1,
        amount_usdc: '1.000001',
        amount_usdc_units: 1_000_001,
        amount_token: '1.000001',
        amount_token_units: 1_000_001,
        status: 'pending',
        expires_at: '2030-01-01T01:00:00.000Z',
        qr_uri: `ethereum:${USDT_ON_BASE}@${chainId}/transfer?address=${RECIPIENT}&uint256=1000001`,
      }),
    );
  assert.match(on(31337), /Pay 1\.000001 USDC \(1 USD\) on local EVM chain \(id 31337\) — sandbox, not real tokens — to 0x1{40}\./);
  assert.match(on(84532), /Pay 1\.000001 USDC \(1 USD\) on Base Sepolia \(testnet\) — test tokens, not real money — to /);
  assert.doesNotMatch(on(31337), /on Base/);
});

test('a Bitcoin invoice names its network: mainnet as "Bitcoin", regtest as the sandbox it is', () => {
  const on = (network: 'mainnet' | 'regtest', address: string) =>
    describeCreatedInvoice(
      defaultChains,
      BtcInvoiceCreated.parse({
        invoice_id: 'inv_btc',
        x402_url: null,
        merchant_id: 'default',
        chain: 'btc',
        asset: 'BTC',
        receive_address: address,
        child_index: 0,
        status: 'pending',
        tx_hash: null,
        paid_at: null,
        expires_at: '2030-01-01T01:00:00.000Z',
        created_at: '2030-01-01T00:00:00.000Z',
        updated_at: '2030-01-01T00:00:00.000Z',
        amount_btc: '0.00050000',
        amount_sats: 50_000,
        network,
        memo: null,
        derivation_path: "m/84'/1'/0'/0/0",
        qr_uri: `bitcoin:${address}?amount=0.0005`,
        verify_url: `https://mempool.space/address/${address}`,
      }),
    );
  assert.match(on('regtest', 'bcrt1qexample'), /^Pay 0\.00050000 BTC \(50000 sats\) on Bitcoin regtest — sandbox, not real bitcoin — to bcrt1qexample\.$/m);
  assert.match(on('mainnet', 'bc1qexample'), /^Pay 0\.00050000 BTC \(50000 sats\) on Bitcoin to bc1qexample\.$/m);
});

describe('a Bitcoin invoice with a Lightning invoice', () => {
  const ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
  const BOLT11 = 'lnbc500u1pexamplebolt11invoice';
  const HASH = 'ab'.repeat(32);
  const stored = (fields: Record<string, unknown>) =>
    BtcInvoice.parse({
      invoice_id: 'inv_ln',
      merchant_id: 'default',
      chain: 'btc',
      asset: 'BTC',
      receive_address: ADDRESS,
      child_index: 0,
      status: 'pending',
      tx_hash: null,
      paid_at: null,
      expires_at: '2030-01-01T01:00:00.000Z',
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
      amount_btc: '0.00050000',
      amount_sats: 50_000,
      network: 'mainnet',
      memo: null,
      order_id: null,
      metadata: null,
      redirect_url: null,
      x402_url: null,
      lightning_invoice: BOLT11,
      payment_hash: HASH,
      payment_method: null,
      ...fields,
    });
  const created = (fields: Record<string, unknown>) =>
    BtcInvoiceCreated.parse({ ...stored(fields), derivation_path: "m/84'/0'/0'/0/0", verify_url: `https://mempool.space/address/${ADDRESS}`, qr_uri: `bitcoin:${ADDRESS}?amount=0.0005&lightning=${BOLT11}`, ...fields });
  const lightningOnly = { receive_address: BOLT11, child_index: null, qr_uri: `lightning:${BOLT11}` };

  test('either way: create_invoice and get_invoice_status give the address, then the BOLT11 the payer may pay instead', () => {
    const either = new RegExp(`^The payer may pay on-chain to that address, or over Lightning to this BOLT11 invoice \\(for exactly the amount, expiring with the invoice\\): ${BOLT11}$`, 'm');
    const createdText = describeCreatedInvoice(defaultChains, created({}));
    assert.match(createdText, new RegExp(`^Pay 0\\.00050000 BTC \\(50000 sats\\) on Bitcoin to ${ADDRESS}\\.$`, 'm'));
    assert.match(createdText, either);
    assert.match(createdText, /^The payment URI carries both: a wallet pays it either way\.\nPayment URI: bitcoin:.*&lightning=lnbc500u1pexamplebolt11invoice$/m);
    assert.match(describeStoredInvoice(defaultChains, stored({})), either);
  });

  test('Lightning only: the BOLT11 is where to pay, and the text says there is no address', () => {
    const createdText = describeCreatedInvoice(defaultChains, created(lightningOnly));
    assert.match(createdText, new RegExp(`^Pay 0\\.00050000 BTC \\(50000 sats\\) on Bitcoin to ${BOLT11}\\.$`, 'm'));
    assert.match(createdText, /^Lightning only: that is a BOLT11 invoice for exactly the amount, paid from a Lightning wallet; there is no on-chain address\.$/m);
    assert.doesNotMatch(createdText, /on-chain to that address/);
    assert.equal(createdText.split(BOLT11).length - 1, 2, 'the BOLT11 twice: where to pay, and in the lightning: URI');
    assert.match(describeStoredInvoice(defaultChains, stored(lightningOnly)), /^Lightning only: /m);
  });

  test('once part is paid on-chain, or the invoice ended, the status text offers no Lightning', () => {
    for (const status of ['partial', 'expired'] as const) assert.doesNotMatch(describeStoredInvoice(defaultChains, stored({ status })), /Lightning|lnbc/, status);
    assert.doesNotMatch(describeStoredInvoice(defaultChains, stored({ lightning_invoice: null, payment_hash: null })), /Lightning/, 'on-chain only');
  });

  test('paid over Lightning: the payment hash instead of a transaction', () => {
    const text = describeStoredInvoice(defaultChains, stored({ status: 'confirmed', paid_at: '2030-01-01T00:10:00.000Z', payment_method: 'lightning' }));
    assert.match(text, new RegExp(`^Paid over Lightning \\(payment hash ${HASH}\\)\\.\\nPaid at 2030-01-01T00:10:00\\.000Z\\.$`, 'm'));
    assert.doesNotMatch(text, /transaction|null/);
    const onchain = describeStoredInvoice(defaultChains, stored({ status: 'confirmed', paid_at: '2030-01-01T00:10:00.000Z', payment_method: 'onchain', tx_hash: 'cd'.repeat(32) }));
    assert.match(onchain, /^Paid at 2030-01-01T00:10:00\.000Z in transaction (cd){32}\.$/m);
    assert.doesNotMatch(onchain, /Lightning/);
  });
});
