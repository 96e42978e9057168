import { ChainSourceError } from './chain-source.ts';

/** An 80-byte header as a source served it, with the height it claimed (checked by where it links). */
export interface SourceHeader {
  height: number;
  raw: Buffer;
}

/** What the header chain asks of a third-party source: its tip, and headers to check. */
export interface HeaderSource {
  tipHash(): Promise<string>;
  /** The header of block `hash`, or null when the source does not know it. */
  headerOf(hash: string): Promise<SourceHeader | null>;
  /** Active-chain headers from height `top` down, as many as one request brings (Esplora: 10). */
  headersDownFrom(top: number): Promise<SourceHeader[]>;
}

const HEX64 = /^[0-9a-f]{64}$/;
const uint32 = (value: unknown) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff;

/**
 * The 80-byte header an Esplora block JSON describes (`/block/:hash`, `/blocks/:height`), rebuilt
 * from its fields. Nothing in the JSON is believed: the header chain hashes the rebuilt bytes, so
 * a field that lies gives a header that fails its proof of work or does not link.
 */
export function headerFromEsploraJson(json: unknown): SourceHeader {
  const b = json as Record<string, unknown>;
  const prev = b?.previousblockhash ?? '0'.repeat(64);
  if (
    !Number.isSafeInteger(b?.height) ||
    !Number.isInteger(b.version) ||
    typeof prev !== 'string' ||
    !HEX64.test(prev) ||
    typeof b.merkle_root !== 'string' ||
    !HEX64.test(b.merkle_root) ||
    !uint32(b.timestamp) ||
    !uint32(b.bits) ||
    !uint32(b.nonce)
  ) {
    throw new ChainSourceError('esplora', 'block header fields are malformed');
  }
  const raw = Buffer.alloc(80);
  raw.writeInt32LE((b.version as number) | 0, 0);
  Buffer.from(prev, 'hex').reverse().copy(raw, 4);
  Buffer.from(b.merkle_root, 'hex').reverse().copy(raw, 36);
  raw.writeUInt32LE(b.timestamp as number, 68);
  raw.writeUInt32LE(b.bits as number, 72);
  raw.writeUInt32LE(b.nonce as number, 76);
  return { height: b.height as number, raw };
}
