import * as bitcoin from 'bitcoinjs-lib';

/**
 * The output script (hex) an address pays to, as the watcher matches it against block outputs.
 * Segwit addresses are decoded directly: bitcoinjs's toOutputScript tries base58 first and throws
 * on the way, about ten times slower, which shows when 100,000 addresses are loaded at start.
 */
export function outputScriptHex(address: string, network: bitcoin.networks.Network): string {
  if (address.toLowerCase().startsWith(`${network.bech32}1`)) {
    const { version, prefix, data } = bitcoin.address.fromBech32(address);
    const validProgram = version === 0 ? data.length === 20 || data.length === 32 : version <= 16 && data.length >= 2 && data.length <= 40;
    if (prefix === network.bech32 && validProgram) {
      const versionOp = version === 0 ? bitcoin.opcodes.OP_0 : bitcoin.opcodes.OP_1 + version - 1;
      return Buffer.from(bitcoin.script.compile([versionOp, data])).toString('hex');
    }
  }
  return Buffer.from(bitcoin.address.toOutputScript(address, network)).toString('hex');
}
