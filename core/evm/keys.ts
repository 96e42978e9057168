import { createHash } from 'node:crypto';
import { getAddress, getBytes, HDNodeVoidWallet, HDNodeWallet } from 'ethers';

/** The merchant's EVM account key sits at m/44'/60'/0'; invoice addresses are its children 0/i. */
export const ACCOUNT_PATH = "m/44'/60'/0'";
const ACCOUNT_DEPTH = 3;

export class KeyError extends Error {}

export interface EvmAccountKey {
  /**
   * What the key is (a hash of its public key and chain code), whatever its text: the same key
   * exported with other metadata (parent fingerprint, child number) gives the same addresses and
   * so the same id, and shares one index sequence.
   */
  keyId: string;
  /** EIP-55 checksummed address of external child `index` (path 0/index under the account). */
  address(index: number): string;
  derivationPath(index: number): string;
}

/**
 * Parses an EVM account xpub. An extended private key is refused outright: the service must
 * never hold a signing key, so an xprv is an operator mistake to stop at, not to neuter.
 */
export function parseEvmAccountXpub(extendedKey: string): EvmAccountKey {
  let node: HDNodeWallet | HDNodeVoidWallet;
  try {
    node = HDNodeWallet.fromExtendedKey(extendedKey.trim());
  } catch {
    throw new KeyError('not a valid extended public key');
  }
  if (node instanceof HDNodeWallet) {
    throw new KeyError('an extended PRIVATE key was given; supply the account xpub (public key) only');
  }
  if (node.depth !== ACCOUNT_DEPTH) {
    throw new KeyError(`expected the account xpub at ${ACCOUNT_PATH} (depth ${ACCOUNT_DEPTH}), got depth ${node.depth}`);
  }
  const external = node.deriveChild(0);
  return {
    keyId: createHash('sha256').update(getBytes(node.publicKey)).update(getBytes(node.chainCode)).digest('hex').slice(0, 16),
    address: (index) => getAddress(external.deriveChild(index).address),
    derivationPath: (index) => `${ACCOUNT_PATH}/0/${index}`,
  };
}

/** The key id used before migration 0009: a hash of the key's text, so two texts of one key had two ids. */
export function textKeyId(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * A fixed receive address must be given in its EIP-55 checksummed form: every payment goes to
 * it, and a lowercase address carries no checksum to catch a typo.
 */
export function parseChecksummedAddress(text: string): string {
  const trimmed = text.trim();
  let normalised: string;
  try {
    normalised = getAddress(trimmed);
  } catch {
    throw new KeyError('not a valid EVM address (wrong length, characters or EIP-55 checksum)');
  }
  if (normalised !== trimmed) throw new KeyError(`give the EIP-55 checksummed form: ${normalised}`);
  return normalised;
}
