import { parentPort, workerData } from 'node:worker_threads';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { BtcNetwork } from '../../shared/index.ts';
import { bitcoinNetworks } from './account-key.ts';

export interface DeriveWorkerData {
  publicKey: Uint8Array;
  chainCode: Uint8Array;
  network: BtcNetwork;
}

export interface DeriveRequest {
  from: number;
  count: number;
}

export interface DeriveResult {
  from: number;
  addresses: string[];
}

const data = workerData as DeriveWorkerData;
const network = bitcoinNetworks[data.network];
const chain = BIP32Factory(ecc).fromPublicKey(data.publicKey, data.chainCode, network);

parentPort!.on('message', ({ from, count }: DeriveRequest) => {
  const addresses: string[] = [];
  for (let index = from; index < from + count; index++) {
    addresses.push(bitcoin.payments.p2wpkh({ pubkey: chain.derive(index).publicKey, network }).address!);
  }
  parentPort!.postMessage({ from, addresses } satisfies DeriveResult);
});
