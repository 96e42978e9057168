import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import bs58check from 'bs58check';
import * as ecc from 'tiny-secp256k1';
import type { BtcNetwork } from '../../shared/index.ts';
import { bitcoinNetworks } from './networks.ts';

const bip32 = BIP32Factory(ecc);

/** SLIP-132 version bytes of account-level public keys this listener accepts. */
const publicVersions: Record<number, { prefix: string; family: 'main' | 'test' }> = {
  0x0488b21e: { prefix: 'xpub', family: 'main' },
  0x04b24746: { prefix: 'zpub', family: 'main' },
  0x043587cf: { prefix: 'tpub', family: 'test' },
  0x045f1cf6: { prefix: 'vpub', family: 'test' },
};

/** Versions that carry a private key (xprv, yprv, zprv, Yprv, Zprv, tprv, uprv, vprv, Uprv, Vprv). */
const privateVersions = new Set([
  0x0488ade4, 0x049d7878, 0x04b2430c, 0x0295b005, 0x02aa7a99, 0x04358394, 0x044a4e28, 0x045f18bc, 0x024285b5,
  0x02575048,
]);

/** BIP-49 and multisig public versions: valid keys, but not for BIP-84 single-sig addresses. */
const otherPublicVersions: Record<number, string> = {
  0x049d7cb2: 'ypub (BIP-49 wrapped segwit)',
  0x044a5262: 'upub (BIP-49 wrapped segwit)',
  0x0295b43f: 'Ypub (multisig)',
  0x02aa7ed3: 'Zpub (multisig)',
  0x024289ef: 'Upub (multisig)',
  0x02575483: 'Vpub (multisig)',
};

const HARDENED = 0x80000000;

export interface AccountKey {
  network: BtcNetwork;
  /** BIP-44 coin type: 0 on mainnet, 1 on every test network. */
  coinType: 0 | 1;
  account: number;
  /** The external (receive) chain node, m/84'/c'/a'/0. */
  receiveChain: BIP32Interface;
  /** Stable id of the key material (not the key itself), so a new wallet starts its own index sequence. */
  keyId: string;
}

export class AccountKeyError extends Error {}

/** Whether a string is, or contains, an extended private key of any common version. */
export function containsExtendedPrivateKey(text: string): boolean {
  for (const match of text.matchAll(/[1-9A-HJ-NP-Za-km-z]{100,112}/g)) {
    const version = versionOf(match[0]);
    if (version !== null && privateVersions.has(version)) return true;
  }
  return /\b[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,}/.test(text);
}

function versionOf(text: string): number | null {
  try {
    const payload = bs58check.decode(text);
    if (payload.length !== 78) return null;
    return new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0);
  } catch {
    return null;
  }
}

/**
 * Parses a BIP-84 account key (xpub/zpub on mainnet, tpub/vpub on test networks). The network
 * follows from the key; `override` may only pick another test network for a test key.
 */
export function parseAccountKey(text: string, override?: BtcNetwork): AccountKey {
  const trimmed = text.trim();
  const version = versionOf(trimmed);
  if (version === null) throw new AccountKeyError('is not a valid extended public key (bad base58check or length)');
  if (privateVersions.has(version)) {
    throw new AccountKeyError('is an extended PRIVATE key; give the account xpub/zpub instead (the listener never needs a private key)');
  }
  const kind = publicVersions[version];
  if (!kind) {
    const other = otherPublicVersions[version];
    throw new AccountKeyError(
      other ? `is a ${other} key; this listener derives BIP-84 native segwit addresses and needs an xpub/zpub/tpub/vpub` : 'has an unknown version',
    );
  }
  let network: BtcNetwork = kind.family === 'main' ? 'mainnet' : 'testnet';
  if (override && override !== network) {
    if (kind.family === 'main' || override === 'mainnet') {
      throw new AccountKeyError(`is a ${kind.family === 'main' ? 'mainnet' : 'test-network'} key but BTC_NETWORK is ${override}`);
    }
    network = override;
  }
  const parseNetwork = { ...bitcoinNetworks[network], bip32: { public: version, private: 0 } };
  let node: BIP32Interface;
  try {
    node = bip32.fromBase58(trimmed, parseNetwork);
  } catch (error) {
    throw new AccountKeyError(`is not a valid extended public key (${(error as Error).message})`);
  }
  if (node.depth !== 3 || node.index < HARDENED) {
    throw new AccountKeyError(`must be an account-level key (m/84'/coin'/account', depth 3); this one has depth ${node.depth}`);
  }
  const keyId = Buffer.from(bitcoin.crypto.sha256(Buffer.concat([node.publicKey, node.chainCode]))).toString('hex').slice(0, 16);
  return {
    network,
    coinType: network === 'mainnet' ? 0 : 1,
    account: node.index - HARDENED,
    receiveChain: node.derive(0),
    keyId,
  };
}

export function receiveAddress(key: AccountKey, index: number): string {
  const child = key.receiveChain.derive(index);
  const { address } = bitcoin.payments.p2wpkh({ pubkey: child.publicKey, network: bitcoinNetworks[key.network] });
  if (!address) throw new Error('p2wpkh produced no address');
  return address;
}

export function derivationPath(key: AccountKey, index: number): string {
  return `m/84'/${key.coinType}'/${key.account}'/0/${index}`;
}
