import { assetIdOf, chainFacts, type AssetId } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { ChainModule } from '../invoices/chain-module.ts';
import { checkoutCommon } from '../invoices/checkout-common.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { tokenAmountFields, unitsToDecimal } from './amount.ts';
import type { EvmConfig } from './evm-config.ts';
import { rowToEvmInvoice } from './methods/evm-methods.ts';
import { erc20TransferUri } from './eip681.ts';
import type { EvmChainSpec } from './evm-chain-spec.ts';
import { evmTransferSeenBeforeExpiry, seenUnitsOf } from './partial.ts';

const unitsOf = (row: InvoiceRow) => BigInt(requiredAmount(row.amount_units, 'amount_units', row.invoice_id));

/** The module of one EVM chain: the same code for every EVM chain, its differences in `spec`. */
export function evmModule(spec: EvmChainSpec): ChainModule<Pick<EvmConfig, 'tokens' | 'fixedAddress'>> {
  const facts = chainFacts[spec.chain];
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
  };
  return module;
}

