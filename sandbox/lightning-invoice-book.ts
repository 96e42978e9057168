import { createHash, randomBytes } from 'node:crypto';
import bolt11 from 'bolt11';
import * as ecc from 'tiny-secp256k1';

export type LightningNetwork = 'mainnet' | 'testnet' | 'signet' | 'regtest';

export interface SimulatedInvoice {
  paymentHash: string;
  bolt11: string;
  /** What the BOLT11 invoice asks for. */
  amountMsat: number;
  state: 'pending' | 'settled' | 'expired';
  /** The real preimage: its sha256 is paymentHash. */
  preimage: string;
  description: string;
  /** Unix seconds. */
  createdAt: number;
  /** Unix seconds. */
  expiresAt: number;
  /** Unix seconds, once settled. */
  settledAt: number | null;
  /** What the payer paid, once settled (may be below amountMsat: some wallets accept any amount). */
  settledAmountMsat: number | null;
  /** The connection (client pubkey) that asked for it: its payment_received goes there. */
  clientPubkey: string;
}

// BOLT #11 prefixes; bolt11's network object also carries the address versions of fallback fields.
const NETWORKS: Record<LightningNetwork, { bech32: string; pubKeyHash: number; scriptHash: number; validWitnessVersions: number[] }> = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  signet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};
// BOLT #11: "Default is 3600 (1 hour) if not specified."
export const DEFAULT_EXPIRY_SECONDS = 3600;
// LND's and Core Lightning's default final CLTV delta.
const MIN_FINAL_CLTV_EXPIRY = 18;

export const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

export interface NodeKey {
  privateKey: string;
  /** 33-byte compressed. */
  publicKey: string;
}

/** A random secp256k1 private key and its compressed public key, both hex. */
export function newNodeKey(): NodeKey {
  for (;;) {
    const candidate = randomBytes(32);
    if (ecc.isPrivate(candidate)) {
      return { privateKey: candidate.toString('hex'), publicKey: Buffer.from(ecc.pointFromScalar(candidate, true) as Uint8Array).toString('hex') };
    }
  }
}

export interface MintRequest {
  amountMsat: number;
  description: string;
  /** Committed to with an `h` field instead of `d`, when given. */
  descriptionHash?: string;
  expirySeconds: number;
  nowSeconds: number;
  network: LightningNetwork;
  nodePrivateKey: string;
}

/**
 * A real BOLT #11 invoice: random preimage, its sha256 as the payment hash, a payment secret with
 * the features modern payers require (var_onion_optin, payment_secret), signed with the node key.
 */
export function mintInvoice(request: MintRequest): { bolt11: string; paymentHash: string; preimage: string } {
  const preimage = randomBytes(32).toString('hex');
  const paymentHash = sha256Hex(preimage);
  const purpose = request.descriptionHash
    ? { tagName: 'purpose_commit_hash', data: request.descriptionHash }
    : { tagName: 'description', data: request.description };
  const unsigned = bolt11.encode(
    {
      network: NETWORKS[request.network],
      timestamp: request.nowSeconds,
      millisatoshis: String(request.amountMsat),
      tags: [
        { tagName: 'payment_hash', data: paymentHash },
        { tagName: 'payment_secret', data: randomBytes(32).toString('hex') },
        purpose,
        { tagName: 'expire_time', data: request.expirySeconds },
        { tagName: 'min_final_cltv_expiry', data: MIN_FINAL_CLTV_EXPIRY },
        { tagName: 'feature_bits', data: { word_length: 4, var_onion_optin: { required: true }, payment_secret: { required: true } } },
      ],
    },
    false,
  );
  const signed = bolt11.sign(unsigned, request.nodePrivateKey);
  return { bolt11: signed.paymentRequest as string, paymentHash, preimage };
}

export type InvoiceBook = ReturnType<typeof createInvoiceBook>;

/** The invoices a simulated node issued, found by payment hash or by their BOLT11 text. */
export function createInvoiceBook(now: () => number) {
  const byHash = new Map<string, SimulatedInvoice>();
  const byText = new Map<string, SimulatedInvoice>();

  const stateOf = (invoice: SimulatedInvoice): SimulatedInvoice['state'] =>
    invoice.state === 'pending' && now() >= invoice.expiresAt * 1000 ? 'expired' : invoice.state;

  return {
    add(invoice: SimulatedInvoice) {
      byHash.set(invoice.paymentHash, invoice);
      byText.set(invoice.bolt11.toLowerCase(), invoice);
    },
    /** The invoice with its state as of now (an unpaid one past its expiry is expired). */
    find(paymentHashOrBolt11: string): SimulatedInvoice | undefined {
      const key = paymentHashOrBolt11.toLowerCase();
      const invoice = byHash.get(key) ?? byText.get(key);
      return invoice && { ...invoice, state: stateOf(invoice) };
    },
    settle(paymentHash: string, amountMsat: number, settledAt: number) {
      const invoice = byHash.get(paymentHash);
      if (invoice) Object.assign(invoice, { state: 'settled', settledAt, settledAmountMsat: amountMsat });
    },
    all: (): SimulatedInvoice[] => [...byHash.values()].map((invoice) => ({ ...invoice, state: stateOf(invoice) })),
  };
}
