import { btcNetworkName, chainFacts, networkLabel, type BtcNetwork } from '../../shared/index.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { ChainDisplay, ShownInvoice } from '../invoices/chain-display.ts';
import type { ChainModule } from '../invoices/chain-module.ts';
import { checkoutCommon } from '../invoices/checkout-common.ts';
import { satsToBtc } from './amount.ts';
import { bip21Uri, lightningUri } from './bip21.ts';
import { isLightningOnly } from './btc-invoice.mapper.ts';
import { btcAdapter } from './btc-adapter.ts';
import { btcMerchant } from './btc-merchant.ts';
import { seenSatsOf } from './btc-payment.repository.ts';
import { computeGapReport } from './gap-report.ts';
import type { SandboxPayment } from '../invoices/sandbox-payment.ts';

function bitcoinInvoice(invoice: ShownInvoice) {
  if (invoice.chain !== 'btc') throw new Error(`not a Bitcoin invoice: ${invoice.chain}`);
  return invoice;
}

/** Decimal BTC text ("0.00050000") in sats, exactly. */
function btcTextToSats(text: string): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole) * 100_000_000n + BigInt(fraction.padEnd(8, '0').slice(0, 8));
}

/**
 * From the sandbox wallet, on its regtest chain only; over Lightning from the sandbox's simulated
 * wallet when asked, or when Lightning is the only way the invoice takes.
 */
const btcSandboxPayment: SandboxPayment = (view, { amount, lightning }) => {
  if (view.chain !== 'btc') throw new Error(`not a Bitcoin invoice: ${view.chain}`);
  if (amount !== undefined && !/^[1-9]\d*$/.test(amount)) return { refused: 'The amount of a Bitcoin invoice is in sats: a positive integer.' };
  // A Lightning-only invoice has no address: its receive_address repeats the BOLT11.
  if (lightning || view.receive_address.startsWith('ln')) return lightningSandboxPayment(view.lightning_invoice ?? null, amount);
  if (!view.receive_address.startsWith('bcrt1')) return { refused: 'That invoice is not on the sandbox regtest chain; pay it from a real wallet.' };
  const sats = amount ?? String(btcTextToSats(view.amount_due));
  return {
    action: 'pay',
    body: { address: view.receive_address, amount_sats: sats },
    paid: (answer) => `paid ${sats} sats to ${view.receive_address}\ntxid ${answer.txid}`,
  };
};

/**
 * What a text says of an invoice's Lightning side: that the payer may pay either way (the BOLT11
 * follows the address, and the unified payment URI carries both), or that it is Lightning only (its
 * receive_address is the BOLT11 itself, already in the text).
 */
function lightningNotes(invoice: { receive_address: string; lightning_invoice?: string | null }): string[] {
  const bolt11 = invoice.lightning_invoice;
  if (!bolt11) return [];
  if (invoice.receive_address === bolt11) return ['Lightning only: that is a BOLT11 invoice for exactly the amount, paid from a Lightning wallet; there is no on-chain address.'];
  return [
    `The payer may pay on-chain to that address, or over Lightning to this BOLT11 invoice (for exactly the amount, expiring with the invoice): ${bolt11}`,
    'The payment URI carries both: a wallet pays it either way.',
  ];
}

/** Settles the BOLT11 in the sandbox's simulated wallet, as a payer's wallet paying it would; `sats` less than asked models a wallet that takes any amount. */
function lightningSandboxPayment(bolt11: string | null, sats: string | undefined): ReturnType<SandboxPayment> {
  if (!bolt11) return { refused: 'That invoice has no Lightning invoice to pay: it was made without Lightning (pay it on-chain, without --lightning), or it is no longer pending.' };
  if (!bolt11.startsWith('lnbcrt')) return { refused: 'That Lightning invoice is not on the sandbox regtest network; pay it from a real wallet.' };
  return {
    action: 'lightning/pay',
    body: { invoice: bolt11, ...(sats === undefined ? {} : { amount_msat: String(BigInt(sats) * 1000n) }) },
    paid: (answer) =>
      `paid ${BigInt(String(answer.amount_msat)) / 1000n} sats over Lightning from the sandbox's simulated wallet\npayment_hash ${answer.payment_hash}\npreimage ${answer.preimage}`,
  };
}

const btcDisplay: ChainDisplay = {
  amountOf: (invoice) => bitcoinInvoice(invoice).amount_btc,
  pricedAmount(invoice) {
    const btc = bitcoinInvoice(invoice);
    return 'amount_sats' in btc ? `${btc.amount_btc} BTC (${btc.amount_sats} sats)` : `${btc.amount_btc} BTC`;
  },
  networkOf: (invoice) => btcNetworkName(bitcoinInvoice(invoice).network),
  sendOn: (_view, network) => networkLabel(network),
  feeName: 'network fee',
  exactAmountOf: () => null,
  readableAmount: (_invoice, amount) => amount,
  createdNotes: (invoice) => lightningNotes(bitcoinInvoice(invoice)),
  statusNotes(invoice) {
    const btc = bitcoinInvoice(invoice);
    if (btc.status === 'confirmed' && 'payment_method' in btc && btc.payment_method === 'lightning') return [`Paid over Lightning (payment hash ${btc.payment_hash}).`];
    // Once part is paid on-chain the BOLT11, which asks for the whole amount, would pay twice.
    return btc.status === 'pending' ? lightningNotes(btc) : [];
  },
  confirmationTime: '10 to 60 minutes',
  pricingHint: 'give amount_sats, an integer number of satoshis (1 BTC = 100,000,000 sats; e.g. 25,000 sats is 0.00025 BTC). Never pass BTC or USD in amount_sats.',
};

/** Bitcoin as the editions, the MCP server and the checkout page see it. Settings: any object once MERCHANT_BTC_XPUB is set. */
export const btcModule: ChainModule<object> = {
  chain: 'btc',
  facts: chainFacts.btc,
  adapter: btcAdapter,
  // Settings with a Lightning connection (the listener's MERCHANT_NWC_URL) take Lightning too.
  enabledAssets: (settings) => ((settings as { lightning?: unknown }).lightning ? ['btc', 'btc-lightning'] : ['btc']),
  disabled: btcAdapter.disabled,
  paidSoFar: async (db, row) => BigInt(await seenSatsOf(db, row.merchant_id, row.invoice_id)),
  amountText: (row) => satsToBtc(requiredAmount(row.amount_sats, 'amount_sats', row.invoice_id)),
  unitsText: satsToBtc,
  paymentUri(row, sats) {
    if (isLightningOnly(row)) return lightningUri(row.lightning_invoice!);
    // The BOLT11 is for the whole amount: a QR asking for what is left of a partial invoice leaves it out.
    const whole = BigInt(row.amount_sats ?? 0) === sats;
    return bip21Uri(row.receive_address, satsToBtc(sats), row.memo, whole ? row.lightning_invoice : null);
  },
  checkoutView(row, context) {
    const sats = BigInt(requiredAmount(row.amount_sats, 'amount_sats', row.invoice_id));
    const { common, due, askFor, seen } = checkoutCommon(row, context, sats);
    return {
      ...common,
      chain: 'btc',
      asset: 'BTC',
      network: (row.network ?? 'mainnet') as BtcNetwork,
      amount_btc: satsToBtc(sats),
      amount_due: satsToBtc(due),
      payment_seen: seen,
      qr_uri: btcModule.paymentUri(row, askFor),
      lightning_invoice: row.status === 'pending' ? (row.lightning_invoice ?? null) : null,
    };
  },
  confirmingTakes: () => `the Bitcoin network is confirming it, which usually takes ${btcDisplay.confirmationTime}`,
  display: btcDisplay,
  walletGap: computeGapReport,
  claimsSetting: (name) => name === 'MERCHANT_BTC_XPUB' || name === 'MERCHANT_NWC_URL',
  sandboxPayment: btcSandboxPayment,
  merchant: btcMerchant,
};

