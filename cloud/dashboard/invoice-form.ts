import { JSON_NUMBER, supportedAssets, type AssetId, type BtcPaymentMethod, type ChainName, type NumberTexts } from '../../shared/index.ts';
import { ServiceError } from '../../core/errors.ts';

/** The lifetime the form offers when none is typed: the API's default, one hour. */
export const DEFAULT_LIFETIME_MIN = 60;

/**
 * The form's "Paid with" choice for Bitcoin, and the `payment_methods` each sends: the first sends
 * none, so the invoice takes every method the merchant has (the API's default).
 */
export const PAID_WITH = {
  'onchain-or-lightning': undefined,
  lightning: ['lightning'],
  onchain: ['onchain'],
} as const satisfies Record<string, readonly BtcPaymentMethod[] | undefined>;
export type PaidWith = keyof typeof PAID_WITH;

/**
 * The "Paid with" choices a merchant can take, the default first: none without a Lightning wallet
 * (its Bitcoin invoices are on-chain only), Lightning alone without a Bitcoin key, else all three.
 */
export function paidWithChoices(enabled: readonly AssetId[], lightningOnly: boolean): PaidWith[] {
  if (!enabled.includes('btc-lightning')) return [];
  return lightningOnly ? ['lightning'] : ['onchain-or-lightning', 'lightning', 'onchain'];
}

/** Whether the asset is one chain's invoices selected by `payment_methods` (Bitcoin over Lightning), not an asset of its own to choose. */
export const selectedByPaymentMethods = (id: AssetId): boolean => Boolean(supportedAssets.find((asset) => asset.id === id)?.request.payment_methods);

/** Whether invoices on the chain take `payment_methods`: one of its assets is selected by them. */
const takesPaymentMethods = (chain: ChainName): boolean => supportedAssets.some((asset) => asset.chain === chain && selectedByPaymentMethods(asset.id));

const isPaidWith = (value: string): value is PaidWith => Object.hasOwn(PAID_WITH, value);

/** The `payment_methods` of the "Paid with" value; nothing chosen is the default. */
function paymentMethodsOf(value: string | undefined): readonly BtcPaymentMethod[] | undefined {
  const chosen = (value ?? '').trim();
  if (chosen === '') return undefined;
  if (!isPaidWith(chosen)) throw new ServiceError('bad_body', 'Choose how the invoice may be paid: on-chain or Lightning, Lightning only, or on-chain only.');
  return PAID_WITH[chosen];
}

/**
 * The dashboard's "new invoice" form as the body of POST /api/v1/invoice, with the amount's own
 * digits (as the JSON edge passes them): the invoice engine then judges it exactly as it judges the
 * API's. Only what the form itself adds is checked here: an asset the merchant has, a number typed
 * as a number, a lifetime in whole minutes, a "Paid with" value the form knows (whether the merchant
 * can take it is the API's to say). That choice is Bitcoin's alone: the API refuses
 * `payment_methods` on any other chain, so it is not sent there.
 */
export function invoiceRequestOfForm(form: Record<string, string>, enabled: readonly AssetId[]): { body: Record<string, unknown>; numberTexts: NumberTexts } {
  const asset = supportedAssets.find((a) => a.id === form.asset);
  if (!asset || !enabled.includes(asset.id)) {
    throw new ServiceError('asset_disabled', `Choose one of the assets of your account: ${enabled.join(', ') || 'none (add a key or address)'}.`);
  }
  const amount = (form.amount ?? '').trim();
  if (!JSON_NUMBER.test(amount)) {
    throw new ServiceError('invalid_amount', asset.unit === 'sats' ? 'The amount is a whole number of sats, e.g. 50000.' : 'The amount is a number of US dollars, e.g. 12.50.');
  }
  const body: Record<string, unknown> = { ...asset.request, [asset.amount_field]: Number(amount) };
  const methods = takesPaymentMethods(asset.chain) ? paymentMethodsOf(form.paid_with) : undefined;
  if (methods) body.payment_methods = [...methods];
  const memo = (form.memo ?? '').trim();
  if (memo) body.memo = memo;
  const lifetime = (form.lifetime_min ?? '').trim();
  if (lifetime) {
    if (!/^\d{1,7}$/.test(lifetime) || Number(lifetime) < 1) throw new ServiceError('bad_body', 'The lifetime is a whole number of minutes, at least 1.');
    body.expires_in = Number(lifetime) * 60;
  }
  return { body, numberTexts: new Map([[asset.amount_field, amount]]) };
}
