import { createHash } from 'node:crypto';
import bolt11 from 'bolt11';

/** The bech32 prefix each Bitcoin network's BOLT11 invoices carry, as the bolt11 package takes it. */
const bolt11Networks: Record<string, { bech32: string; pubKeyHash: number; scriptHash: number; validWitnessVersions: number[] }> = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  signet: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};

export class Bolt11Refused extends Error {}

export interface Bolt11Expectation {
  network: string;
  amountMsat: bigint;
  /** The payment hash the wallet said the invoice has. */
  paymentHash: string;
  /** Epoch seconds the invoice must expire at (± `expirySlackS`). */
  expiresAtS: number;
  /** The node the wallet's earlier invoices were signed by; null before the first. */
  pinnedNode: string | null;
}

export interface CheckedBolt11 {
  paymentHash: string;
  /** The node key the signature recovers to (33-byte compressed, hex). */
  nodePubkey: string;
  expiresAtS: number;
}

/** A wallet rounds expiry to its own clock: a few seconds either way are its, not a lie. */
const EXPIRY_SLACK_S = 120;

/**
 * Checks a BOLT11 invoice the wallet issued before it is shown to anyone: it decodes under the
 * network's prefix, its signature recovers a node key (the same node as the wallet's earlier
 * invoices), and its amount, payment hash and expiry are what was asked.
 */
export function checkBolt11(text: string, expected: Bolt11Expectation): CheckedBolt11 {
  const network = bolt11Networks[expected.network];
  if (!network) throw new Bolt11Refused(`no BOLT11 prefix for network ${expected.network}`);
  let decoded: ReturnType<typeof bolt11.decode>;
  try {
    decoded = bolt11.decode(text, network);
  } catch (error) {
    throw new Bolt11Refused(`the invoice does not decode as a ${expected.network} BOLT11 invoice (${(error as Error).message})`);
  }
  const nodePubkey = decoded.payeeNodeKey;
  if (!nodePubkey) throw new Bolt11Refused('the invoice signature recovers no node key');
  if (expected.pinnedNode && nodePubkey !== expected.pinnedNode) {
    throw new Bolt11Refused(`the invoice is signed by node ${nodePubkey}, not by ${expected.pinnedNode} which signed the wallet's earlier invoices`);
  }
  if (decoded.millisatoshis === null || decoded.millisatoshis === undefined || BigInt(decoded.millisatoshis) !== expected.amountMsat) {
    throw new Bolt11Refused(`the invoice is for ${decoded.millisatoshis ?? 'any amount'} msat, not ${expected.amountMsat}`);
  }
  const paymentHash = decoded.tags.find((tag) => tag.tagName === 'payment_hash')?.data;
  if (typeof paymentHash !== 'string' || paymentHash !== expected.paymentHash.toLowerCase()) {
    throw new Bolt11Refused('the invoice payment hash is not the one the wallet reported');
  }
  const expiresAtS = decoded.timeExpireDate ?? 0;
  if (Math.abs(expiresAtS - expected.expiresAtS) > EXPIRY_SLACK_S) {
    throw new Bolt11Refused(`the invoice expires at ${expiresAtS}, not with the invoice at ${expected.expiresAtS}`);
  }
  return { paymentHash, nodePubkey, expiresAtS };
}

/** Whether `preimage` (hex) is the secret of `paymentHash`: its SHA-256. */
export function preimageMatches(preimage: string, paymentHash: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(preimage) || !/^[0-9a-f]{64}$/i.test(paymentHash)) return false;
  return createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex') === paymentHash.toLowerCase();
}
