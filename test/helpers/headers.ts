import { createHash } from 'node:crypto';
import { bitsToTarget } from '../../core/btc/header-chain.ts';

export interface HeaderFields {
  prevHash: string;
  time: number;
  bits: number;
  /** Distinguishes sibling headers (a fork's blocks at the same height). */
  merkleRoot?: string;
  version?: number;
}

const toInternal = (displayHash: string) => Buffer.from(displayHash, 'hex').reverse();

export function headerHash(raw: Uint8Array): string {
  const once = createHash('sha256').update(raw).digest();
  return createHash('sha256').update(once).digest().reverse().toString('hex');
}

function serialize(fields: HeaderFields, nonce: number): Buffer {
  const raw = Buffer.alloc(80);
  raw.writeInt32LE(fields.version ?? 0x20000000, 0);
  toInternal(fields.prevHash).copy(raw, 4);
  toInternal(fields.merkleRoot ?? '11'.repeat(32)).copy(raw, 36);
  raw.writeUInt32LE(fields.time, 68);
  raw.writeUInt32LE(fields.bits >>> 0, 72);
  raw.writeUInt32LE(nonce, 76);
  return raw;
}

/**
 * A header whose hash meets (`pow: true`) or misses its own target: mined by trying nonces, so keep
 * the targets easy (regtest-like bits).
 */
export function mineHeader(fields: HeaderFields, pow = true): Buffer {
  const target = bitsToTarget(fields.bits)!;
  for (let nonce = 0; nonce < 0xffffffff; nonce++) {
    const raw = serialize(fields, nonce);
    if (BigInt(`0x${headerHash(raw)}`) <= target === pow) return raw;
  }
  throw new Error('no nonce found');
}

/** A header with no proof of work at all: what a fabricated chain carries. */
export const unminedHeader = (fields: HeaderFields) => serialize(fields, 0);
