import { createHash } from 'node:crypto';

/**
 * Bitcoin's block-header rules, as Bitcoin Core applies them to a header (validation.cpp
 * ContextualCheckBlockHeader, pow.cpp GetNextWorkRequired / CalculateNextWorkRequired /
 * CheckProofOfWork), kept without I/O: headers in, a verdict out. A header is believed only when it
 * links to a header already believed, its hash meets the target its `bits` encode, `bits` are what
 * the rules require at its height, and its time is above the median of the previous 11 and at
 * most two hours ahead of the clock. The best chain is the one with the most cumulative work.
 */

/** Blocks between difficulty adjustments. */
export const RETARGET_INTERVAL = 2016;
/** Two weeks: the time a retarget interval should take. */
const TARGET_TIMESPAN = 14 * 24 * 60 * 60;
const TARGET_SPACING = 10 * 60;
export const MEDIAN_TIME_SPAN = 11;
/** validation.cpp MAX_FUTURE_BLOCK_TIME. */
export const MAX_FUTURE_BLOCK_TIME_S = 2 * 60 * 60;

/** How a network's difficulty is chosen (chainparams.cpp consensus.pow*). */
export interface HeaderRules {
  network: 'mainnet' | 'testnet' | 'signet' | 'regtest';
  /** The easiest target allowed, as compact bits (consensus.powLimit). */
  powLimitBits: number;
  /** testnet, regtest: a block more than 20 minutes after its parent may use the easiest target. */
  minDifficultyBlocks: boolean;
  /** regtest: the target never changes. */
  noRetargeting: boolean;
}

export const headerRules: Record<HeaderRules['network'], HeaderRules> = {
  mainnet: { network: 'mainnet', powLimitBits: 0x1d00ffff, minDifficultyBlocks: false, noRetargeting: false },
  testnet: { network: 'testnet', powLimitBits: 0x1d00ffff, minDifficultyBlocks: true, noRetargeting: false },
  signet: { network: 'signet', powLimitBits: 0x1e0377ae, minDifficultyBlocks: false, noRetargeting: false },
  regtest: { network: 'regtest', powLimitBits: 0x207fffff, minDifficultyBlocks: true, noRetargeting: true },
};

/**
 * Where a network's chain is trusted from: the hash of the last block of a retarget interval
 * (height % 2016 === 2015). The headers of that interval are taken on the checkpoint's word (they
 * must hash-link up to it); every later header is checked. Height -1 with an all-zero hash: from
 * the genesis block on, every header is checked (regtest).
 */
export interface Checkpoint {
  height: number;
  hash: string;
  /** When the checkpoint was taken (ISO date): a first sync downloads every header since. */
  takenAt?: string;
}

export const GENESIS_CHECKPOINT: Checkpoint = { height: -1, hash: '0'.repeat(64) };

export type HeaderRejection =
  | 'malformed'
  | 'unknown-parent'
  | 'bad-bits'
  | 'high-hash'
  | 'time-too-old'
  | 'time-too-new'
  | 'checkpoint-mismatch';

const rejectionText: Record<HeaderRejection, string> = {
  malformed: 'is not an 80-byte header',
  'unknown-parent': 'does not link to a known header',
  'bad-bits': 'has difficulty bits the consensus rules do not allow at its height',
  'high-hash': 'has a hash above its target (no proof of work)',
  'time-too-old': 'has a time not above the median of the previous 11 blocks',
  'time-too-new': 'has a time more than 2 hours ahead',
  'checkpoint-mismatch': "does not lead to the release's checkpoint",
};

/** A header the rules refuse; `code` says which rule. */
export class HeaderRejected extends Error {
  constructor(
    readonly code: HeaderRejection,
    readonly hash: string,
    detail?: string,
  ) {
    super(`header ${hash} ${rejectionText[code]}${detail ? ` (${detail})` : ''}`);
  }
}

/** The fields of an 80-byte header the rules read. */
export interface BlockHeader {
  raw: Buffer;
  hash: string;
  prevHash: string;
  time: number;
  bits: number;
}

/** A believed header and what the next header's checks need from it. */
export interface ChainEntry extends BlockHeader {
  height: number;
  /** Cumulative work from the first trusted header. */
  work: bigint;
  /** Time of the first block of this header's retarget interval. */
  intervalStartTime: number;
  /** The bits of the last block in this interval not mined under the min-difficulty exception (testnet). */
  lastRealBits: number;
  parent: ChainEntry | null;
}

const displayHex = (bytes: Uint8Array) => Buffer.from(bytes).reverse().toString('hex');

function sha256d(data: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

export function parseHeader(raw: Uint8Array): BlockHeader {
  if (raw.length !== 80) throw new HeaderRejected('malformed', '?', `${raw.length} bytes`);
  // A copy: a header kept must not hold on to the whole response it was cut from.
  const buf = Buffer.from(raw);
  return {
    raw: buf,
    hash: displayHex(sha256d(buf)),
    prevHash: displayHex(buf.subarray(4, 36)),
    time: buf.readUInt32LE(68),
    bits: buf.readUInt32LE(72),
  };
}

/** The target compact `bits` encode (arith_uint256::SetCompact); null when negative or overflowing. */
export function bitsToTarget(bits: number): bigint | null {
  const size = bits >>> 24;
  const word = bits & 0x007fffff;
  if (word !== 0 && bits & 0x00800000) return null;
  if (word !== 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32))) return null;
  return size <= 3 ? BigInt(word >>> (8 * (3 - size))) : BigInt(word) << BigInt(8 * (size - 3));
}

/** The compact form of a target (arith_uint256::GetCompact). */
export function targetToBits(target: bigint): number {
  let size = target === 0n ? 0 : Math.ceil(target.toString(16).length / 2);
  let compact = size <= 3 ? Number(target << BigInt(8 * (3 - size))) : Number(target >> BigInt(8 * (size - 3)));
  if (compact & 0x00800000) {
    compact >>>= 8;
    size++;
  }
  return (compact | (size << 24)) >>> 0;
}

/** Expected hashes to find a header at this target (GetBlockProof): 2^256 / (target + 1). */
export function workOf(target: bigint): bigint {
  return (1n << 256n) / (target + 1n);
}

/** The retarget at the start of an interval (CalculateNextWorkRequired), with its factor-4 clamp. */
export function retargetBits(rules: HeaderRules, lastBits: number, intervalStartTime: number, lastTime: number): number {
  const timespan = Math.min(Math.max(lastTime - intervalStartTime, TARGET_TIMESPAN / 4), TARGET_TIMESPAN * 4);
  const powLimit = bitsToTarget(rules.powLimitBits)!;
  let target = (bitsToTarget(lastBits)! * BigInt(timespan)) / BigInt(TARGET_TIMESPAN);
  if (target > powLimit) target = powLimit;
  return targetToBits(target);
}

/** The bits a header at `parent.height + 1` with time `time` must carry (GetNextWorkRequired). */
export function requiredBits(rules: HeaderRules, parent: ChainEntry, time: number): number {
  const height = parent.height + 1;
  if (height % RETARGET_INTERVAL !== 0) {
    if (!rules.minDifficultyBlocks) return parent.bits;
    return time > parent.time + 2 * TARGET_SPACING ? rules.powLimitBits : parent.lastRealBits;
  }
  if (rules.noRetargeting) return parent.bits;
  return retargetBits(rules, parent.bits, parent.intervalStartTime, parent.time);
}

function medianTimePast(parent: ChainEntry): number {
  const times: number[] = [];
  for (let e: ChainEntry | null = parent; e && times.length < MEDIAN_TIME_SPAN; e = e.parent) times.push(e.time);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Target and work by compact bits: every header of an interval carries the same bits. */
const byBits = new Map<number, { target: bigint | null; work: bigint }>();
function targetAndWork(bits: number): { target: bigint | null; work: bigint } {
  let known = byBits.get(bits);
  if (!known) {
    const target = bitsToTarget(bits);
    known = { target, work: target === null ? 0n : workOf(target) };
    if (byBits.size > 10_000) byBits.clear();
    byBits.set(bits, known);
  }
  return known;
}

function entryOf(rules: HeaderRules, header: BlockHeader, parent: ChainEntry | null, height: number): ChainEntry {
  const startsInterval = height % RETARGET_INTERVAL === 0 || !parent;
  return {
    raw: header.raw,
    hash: header.hash,
    prevHash: header.prevHash,
    time: header.time,
    bits: header.bits,
    height,
    work: (parent?.work ?? 0n) + targetAndWork(header.bits).work,
    intervalStartTime: startsInterval ? header.time : parent.intervalStartTime,
    lastRealBits: startsInterval || header.bits !== rules.powLimitBits ? header.bits : parent.lastRealBits,
    parent,
  };
}

/** What adding a header did to the best chain. */
export type HeaderOutcome =
  | { kind: 'known' }
  /** On a branch with no more work than the best chain: kept, not followed. */
  | { kind: 'side' }
  | { kind: 'extended'; tip: ChainEntry }
  /** The best chain switched branches: everything above `forkHeight` changed. */
  | { kind: 'reorg'; tip: ChainEntry; forkHeight: number };

/** Side-branch headers this far below the best tip are forgotten: no honest reorg is that deep. */
const SIDE_BRANCH_KEEP = 144;

/**
 * The header chain of one network from its checkpoint. Not thread-safe by design: the caller adds
 * headers in turn. Lookups by height walk the best chain's array; by hash, a map of every header
 * kept (the best chain and recent side branches).
 */
export class HeaderChain {
  private readonly byHash = new Map<string, ChainEntry>();
  /** Hashes kept off the best chain. */
  private readonly side = new Set<string>();
  private best: ChainEntry[] = [];
  /** Height of `best[0]`. */
  private readonly base: number;

  /**
   * Starts from the checkpoint's interval: `trusted` are the headers from `checkpoint.height - 2015`
   * to the checkpoint, each the parent of the next and the last hashing to the checkpoint. Empty
   * for the genesis checkpoint.
   */
  constructor(
    readonly rules: HeaderRules,
    readonly checkpoint: Checkpoint,
    trusted: readonly Uint8Array[],
  ) {
    const genesis = checkpoint.height === GENESIS_CHECKPOINT.height;
    this.base = genesis ? 0 : checkpoint.height - RETARGET_INTERVAL + 1;
    if (genesis ? trusted.length !== 0 : trusted.length !== RETARGET_INTERVAL) {
      throw new HeaderRejected('checkpoint-mismatch', checkpoint.hash, `expected the ${RETARGET_INTERVAL} headers ending at the checkpoint`);
    }
    let parent: ChainEntry | null = null;
    for (const raw of trusted) {
      const header = parseHeader(raw);
      if (parent && header.prevHash !== parent.hash) throw new HeaderRejected('checkpoint-mismatch', header.hash, 'headers do not link');
      parent = entryOf(rules, header, parent, parent ? parent.height + 1 : this.base);
      this.keep(parent);
      this.best.push(parent);
    }
    if (parent && parent.hash !== checkpoint.hash) throw new HeaderRejected('checkpoint-mismatch', parent.hash, `checkpoint is ${checkpoint.hash}`);
  }

  /** Height of the first header below which nothing is known (the trusted interval's start, or genesis). */
  get baseHeight(): number {
    return this.base;
  }

  get tip(): ChainEntry | null {
    return this.best[this.best.length - 1] ?? null;
  }

  /** The best chain's header at `height`, or null outside it. */
  at(height: number): ChainEntry | null {
    return this.best[height - this.base] ?? null;
  }

  byHashOf(hash: string): ChainEntry | null {
    return this.byHash.get(hash) ?? null;
  }

  /** Whether `hash` is on the best chain (not merely a known side branch). */
  onBestChain(hash: string): boolean {
    const entry = this.byHash.get(hash);
    return entry !== undefined && this.at(entry.height)?.hash === hash;
  }

  /** Checks one header against the rules and adds it; throws HeaderRejected when a rule refuses it. */
  add(raw: Uint8Array, nowMs: number): HeaderOutcome {
    const header = parseHeader(raw);
    if (this.byHash.has(header.hash)) return { kind: 'known' };
    const parent = this.parentOf(header);
    const height = parent ? parent.height + 1 : 0;
    const required = parent ? requiredBits(this.rules, parent, header.time) : this.rules.powLimitBits;
    if (header.bits !== required) throw new HeaderRejected('bad-bits', header.hash, `0x${header.bits.toString(16)} at height ${height}, required 0x${required.toString(16)}`);
    const { target } = targetAndWork(header.bits);
    if (target === null || target === 0n || target > targetAndWork(this.rules.powLimitBits).target! || BigInt(`0x${header.hash}`) > target) {
      throw new HeaderRejected('high-hash', header.hash);
    }
    if (parent && header.time <= medianTimePast(parent)) throw new HeaderRejected('time-too-old', header.hash);
    if (header.time > Math.floor(nowMs / 1000) + MAX_FUTURE_BLOCK_TIME_S) throw new HeaderRejected('time-too-new', header.hash);
    const entry = entryOf(this.rules, header, parent, height);
    this.keep(entry);
    return this.choose(entry);
  }

  private parentOf(header: BlockHeader): ChainEntry | null {
    if (this.checkpoint.height === GENESIS_CHECKPOINT.height && header.prevHash === GENESIS_CHECKPOINT.hash) {
      if (this.best.length) throw new HeaderRejected('unknown-parent', header.hash, 'a second genesis block');
      return null;
    }
    const parent = this.byHash.get(header.prevHash);
    if (!parent) throw new HeaderRejected('unknown-parent', header.hash, `parent ${header.prevHash}`);
    return parent;
  }

  private keep(entry: ChainEntry): void {
    this.byHash.set(entry.hash, entry);
  }

  /** The branch with the most work wins; on a tie the one seen first stays (as a node does). */
  private choose(entry: ChainEntry): HeaderOutcome {
    const tip = this.tip;
    if (tip && entry.work <= tip.work) {
      this.side.add(entry.hash);
      this.forgetOldSideBranches();
      return { kind: 'side' };
    }
    if (!tip || entry.parent === tip) {
      this.best.push(entry);
      return { kind: 'extended', tip: entry };
    }
    return this.switchTo(entry);
  }

  /**
   * Follows a known branch with exactly as much work as the best chain: a source's node keeps the
   * branch it saw first, which may not be ours. Following it costs nothing in security (the branch
   * carries the same work); null when the branch has less or more work, or is the best already.
   */
  preferOnTie(hash: string): HeaderOutcome | null {
    const entry = this.byHash.get(hash);
    if (!entry || !this.tip || this.onBestChain(hash) || entry.work !== this.tip.work) return null;
    return this.switchTo(entry);
  }

  private switchTo(entry: ChainEntry): HeaderOutcome {
    const branch: ChainEntry[] = [];
    let e: ChainEntry | null = entry;
    while (e && this.at(e.height)?.hash !== e.hash) {
      branch.push(e);
      e = e.parent;
    }
    const forkHeight = e ? e.height : this.base - 1;
    for (const left of this.best.splice(forkHeight - this.base + 1)) this.side.add(left.hash);
    for (let i = branch.length - 1; i >= 0; i--) {
      this.best.push(branch[i]);
      this.side.delete(branch[i].hash);
    }
    this.forgetOldSideBranches();
    return { kind: 'reorg', tip: entry, forkHeight };
  }

  private forgetOldSideBranches(): void {
    const floor = this.tip!.height - SIDE_BRANCH_KEEP;
    for (const hash of this.side) {
      if (this.byHash.get(hash)!.height >= floor) continue;
      this.side.delete(hash);
      this.byHash.delete(hash);
    }
  }

  /** The best chain's headers above `height`, oldest first (what a store persists after a change). */
  bestAbove(height: number): ChainEntry[] {
    return this.best.slice(Math.max(0, height + 1 - this.base));
  }
}
