/**
 * BIP-21 payment URI. The amount is in BTC as a plain decimal with trailing zeros removed
 * (BIP-21 forbids exponents); the label is percent-encoded per RFC 3986.
 */
export function bip21Uri(address: string, amountBtc: string, label?: string | null, lightning?: string | null): string {
  const amount = amountBtc.includes('.') ? amountBtc.replace(/0+$/, '').replace(/\.$/, '') : amountBtc;
  const params = [`amount=${amount}`];
  if (label) params.push(`label=${encodeRfc3986(label)}`);
  // The unified QR: wallets that speak Lightning pay the BOLT11, the others the address (BIP-21's lightning= parameter).
  if (lightning) params.push(`lightning=${lightning}`);
  return `bitcoin:${address}?${params.join('&')}`;
}

/** The URI of a Lightning-only invoice: `lightning:` and the BOLT11, as wallets scan it. */
export const lightningUri = (bolt11: string): string => `lightning:${bolt11}`;

function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
