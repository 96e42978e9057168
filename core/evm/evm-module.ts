import { assetIdOf, chainFacts, evmChainName, evmNetworkOfUri, networkLabel, type AssetId, type EvmChainName } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { ChainAdapter } from '../invoices/chain-adapter.ts';
import type { ChainDisplay, ShownInvoice } from '../invoices/chain-display.ts';
import type { ChainModule } from '../invoices/chain-module.ts';
import { checkoutCommon } from '../invoices/checkout-common.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { AmountError, tokenAmountFields, unitsToDecimal, usdTextToUnits } from '../invoices/token-amount.ts';
import type { SandboxPayment } from '../invoices/sandbox-payment.ts';
import { EVM_ADDRESS, EVM_XPUB, evmSettingNamesOf, type EvmConfig } from './evm-config.ts';
import { rowToEvmInvoice } from './methods/evm-methods.ts';
import { erc20TransferUri } from './eip681.ts';
import type { EvmChainSpec } from './evm-chain-spec.ts';
import { evmLocalNode } from './evm-local-node.ts';
import { evmMerchant } from './evm-merchant.ts';
import { evmTransferSeenBeforeExpiry, seenUnitsOf } from './partial.ts';
import { claimOf } from './address-claims.ts';
import { getAddress } from 'ethers';

const unitsOf = (row: InvoiceRow) => BigInt(requiredAmount(row.amount_units, 'amount_units', row.invoice_id));

function evmInvoice(invoice: ShownInvoice) {
  if (invoice.chain === 'btc') throw new Error('not an EVM invoice: btc');
  return invoice;
}

const exactAmountOf = (invoice: ShownInvoice) => {
  const evm = evmInvoice(invoice);
  return 'nonce' in evm && evm.nonce !== undefined ? evm.amount_usdc : null;
};

/** A token amount without the zeros past its cents: "12.500000" reads "12.50", "12.123400" "12.1234". */
const centsAtLeast = (amount: string) => amount.replace(/^(\d+\.\d\d\d*?)0+$/, '$1');

/**
 * From the local node's funded account; the sandbox checks the address is its own merchant's (a
 * child of its key, or its fixed address) before it sends anything.
 */
const evmSandboxPayment: SandboxPayment = (evm, { amount, lightning }) => {
  if (evm.chain === 'btc') throw new Error('not an EVM invoice: btc');
  if (lightning) return { refused: 'Only Bitcoin invoices are paid over Lightning; drop --lightning.' };
  let units: bigint;
  try {
    units = usdTextToUnits(amount ?? evm.amount_due);
  } catch (error) {
    if (!(error instanceof AmountError)) throw error;
    return { refused: `The amount of an EVM chain invoice is in USD (${evm.asset}), at most 6 decimals: ${error.message}` };
  }
  const mismatch =
    'nonce' in evm && evm.nonce !== undefined && units !== BigInt(evm.amount_usdc_units)
      ? `\nnote: not the invoice's exact amount ${evm.amount_usdc}: a fixed-address invoice is told apart by its exact amount, so this transfer pays nothing and is reported as payment.orphan once confirmed`
      : '';
  return {
    action: `${evm.chain}/pay`,
    body: { address: evm.receive_address, units: units.toString(), asset: evm.asset.toLowerCase() },
    paid: (answer) => `paid ${unitsToDecimal(units)} ${evm.asset} to ${evm.receive_address}\ntx_hash ${answer.tx_hash}${mismatch}`,
  };
};

/** How the pages and texts speak of an EVM chain's stablecoin invoices. */
function evmDisplay(spec: EvmChainSpec): ChainDisplay {
  return {
    amountOf: (invoice) => evmInvoice(invoice).amount_usdc,
    pricedAmount(invoice) {
      const evm = evmInvoice(invoice);
      return 'amount_usd' in evm ? `${evm.amount_usdc} ${evm.asset} (${evm.amount_usd} USD)` : `${evm.amount_usdc} ${evm.asset}`;
    },
    // A created invoice and a view carry the payment URI, which names the chain id (the sandbox's is a local one); a stored one only its chain.
    networkOf(invoice) {
      const evm = evmInvoice(invoice);
      return 'qr_uri' in evm ? evmNetworkOfUri(evm.qr_uri) : evmChainName(evm.chain);
    },
    sendOn: (view, network) => (network.note ? `${view.asset} on ${networkLabel(network)}` : `${view.asset} on ${network.name} (not Ethereum mainnet)`),
    feeName: 'gas fee',
    exactAmountOf,
    readableAmount: (invoice, amount) => (exactAmountOf(invoice) === null ? centsAtLeast(amount) : amount),
    createdNotes(invoice) {
      const evm = evmInvoice(invoice);
      if (!('mode' in evm) || evm.mode !== 'fixed-address') return [];
      return [
        `Fixed-address mode: send exactly ${evm.amount_usdc} ${evm.asset} (token contract ${evm.token_address}); the exact amount is what identifies this invoice, any other amount is not credited to it.`,
      ];
    },
    statusNotes: () => [],
    confirmationTime: spec.confirmationTime,
    pricingHint: [
      'stablecoins; give amount_usd in US dollars (e.g. 12.5); asset "usdc" (default) or "usdt".',
      'In fixed-address mode (mode "fixed-address" in the result, always for USDT) every invoice shares one address and the invoice is identified by the exact amount: tell the payer to send exactly amount_usdc, not a rounded figure.',
      "USDC invoices carry x402_url: hand it to an agent that pays, which pays it in one call with an x402 client (the requirements are in the result's x402).",
    ].join(' '),
  };
}

/** The module of one EVM chain: the same code for every EVM chain, its differences in `spec`. */
export function evmModule(spec: EvmChainSpec): ChainModule<Pick<EvmConfig, 'tokens' | 'fixedAddress'>> {
  const facts = chainFacts[spec.chain];
  const names = evmSettingNamesOf(spec);
  const merchantSettings = new Set([EVM_XPUB, EVM_ADDRESS, names.xpub, names.address]);
  // Any setting of the first EVM chain counts, as before there were others; another chain's RPC URL
  // alone does not: ETH_RPC_URL is also Foundry's variable, often set in a developer's shell.
  // Base, the first EVM chain, answers the settings every EVM chain once shared (BASE_ and the MERCHANT_EVM_ ones).
  const claimsAllItsSettings = spec.chain === 'base';
  const disabled = new ServiceError(facts.disabledCode, `${facts.name} (${spec.chain}) is not configured for this merchant.`);
  const module: ChainModule<Pick<EvmConfig, 'tokens' | 'fixedAddress'>> = {
    chain: spec.chain,
    facts,
    adapter: { chain: spec.chain, toStoredInvoice: rowToEvmInvoice, paymentSeenBeforeExpiry: evmTransferSeenBeforeExpiry(spec.chain), disabled: () => disabled },
    enabledAssets(settings) {
      const assets: AssetId[] = [];
      if (settings.tokens.has('usdc')) assets.push(assetIdOf(spec.chain, 'USDC'));
      // USDT is served in fixed-address mode only.
      if (settings.tokens.has('usdt') && settings.fixedAddress) assets.push(assetIdOf(spec.chain, 'USDT'));
      return assets;
    },
    disabled: () => disabled,
    paidSoFar: (db, row) => seenUnitsOf(db, row),
    amountText: (row) => unitsToDecimal(unitsOf(row)),
    unitsText: unitsToDecimal,
    // Rows keep their chain id in `network`, so the URI stays right even if the chain id setting changes later.
    paymentUri: (row, units) => erc20TransferUri(row.token_address!, Number(row.network), row.receive_address, units),
    checkoutView(row, context) {
      const units = unitsOf(row);
      const { common, due, askFor, seen } = checkoutCommon(row, context, units);
      return {
        ...common,
        chain: spec.chain,
        asset: row.asset as 'USDC' | 'USDT',
        ...tokenAmountFields(units),
        amount_due: unitsToDecimal(due),
        payment_seen: seen,
        ...(row.nonce !== null ? { nonce: row.nonce } : {}),
        qr_uri: module.paymentUri(row, askFor),
      };
    },
    confirmingTakes: (networkName) => `the ${networkName} network is confirming it, which takes ${spec.confirmationTime}`,
    display: evmDisplay(spec),
    localNode: evmLocalNode(spec),
    sandboxPayment: evmSandboxPayment,
    holdsReceiveAddress: async (db, address) => (await claimOf(db, getAddress(address))) !== undefined,
    claimsSetting: (name) => merchantSettings.has(name) || (claimsAllItsSettings && name.startsWith(`${spec.envPrefix}_`)),
    merchant: evmMerchant(spec, (settings) => module.enabledAssets(settings)),
  };
  return module;
}

