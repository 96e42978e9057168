import { parentPort } from 'node:worker_threads';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { BtcNetwork } from '../../shared/index.ts';
import { bitcoinNetworks } from './networks.ts';

/** Public material of a receive chain (m/84'/…/0): enough to derive its addresses, nothing more. */
export interface ReceiveChainKey {
  keyId: string;
  publicKey: Uint8Array;
  chainCode: Uint8Array;
  network: BtcNetwork;
}

export interface DeriveRequest {
  id: number;
  key: ReceiveChainKey;
  from: number;
  count: number;
}

export interface DeriveResult {
  id: number;
  addresses: string[];
}

/** Parsed receive chains by key id; Cloud asks for many merchants' keys, so this stays bounded. */
const MAX_CHAINS = 1_000;
const bip32 = BIP32Factory(ecc);
const chains = new Map<string, BIP32Interface>();

function chainOf(key: ReceiveChainKey): BIP32Interface {
  let chain = chains.get(key.keyId);
  if (!chain) {
    chain = bip32.fromPublicKey(key.publicKey, key.chainCode, bitcoinNetworks[key.network]);
    if (chains.size >= MAX_CHAINS) chains.delete(chains.keys().next().value!);
    chains.set(key.keyId, chain);
  }
  return chain;
}

parentPort!.on('message', ({ id, key, from, count }: DeriveRequest) => {
  const chain = chainOf(key);
  const network = bitcoinNetworks[key.network];
  const addresses: string[] = [];
  for (let index = from; index < from + count; index++) {
    addresses.push(bitcoin.payments.p2wpkh({ pubkey: chain.derive(index).publicKey, network }).address!);
  }
  parentPort!.postMessage({ id, addresses } satisfies DeriveResult);
});
