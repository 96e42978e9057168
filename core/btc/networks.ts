import * as bitcoin from 'bitcoinjs-lib';
import type { BtcNetwork } from '../../shared/index.ts';

/**
 * bitcoinjs's parameters of each network the listener accepts (signet shares testnet's address
 * formats). Apart from account-key.ts so that reading addresses does not load the key derivation
 * (bip32 and the secp256k1 WebAssembly module).
 */
export const bitcoinNetworks: Record<BtcNetwork, bitcoin.networks.Network> = {
  mainnet: bitcoin.networks.bitcoin,
  testnet: bitcoin.networks.testnet,
  signet: bitcoin.networks.testnet,
  regtest: bitcoin.networks.regtest,
};
