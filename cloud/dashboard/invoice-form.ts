import { JSON_NUMBER, supportedAssets, type AssetId, type NumberTexts } from '../../shared/index.ts';
import { ServiceError } from '../../core/errors.ts';

/** The lifetime the form offers when none is typed: the API's default, one hour. */
export const DEFAULT_LIFETIME_MIN = 60;

/**
 * The dashboard's "new invoice" form as the body of POST /api/v1/invoice, with the amount's own
 * digits (as the JSON edge passes them): the invoice engine then judges it exactly as it judges the
 * API's. Only what the form itself adds is checked here: an asset the merchant has, a number typed
 * as a number, a lifetime in whole minutes.
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
  const memo = (form.memo ?? '').trim();
  if (memo) body.memo = memo;
  const lifetime = (form.lifetime_min ?? '').trim();
  if (lifetime) {
    if (!/^\d{1,7}$/.test(lifetime) || Number(lifetime) < 1) throw new ServiceError('bad_body', 'The lifetime is a whole number of minutes, at least 1.');
    body.expires_in = Number(lifetime) * 60;
  }
  return { body, numberTexts: new Map([[asset.amount_field, amount]]) };
}
