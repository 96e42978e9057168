/** One output as the watcher needs it: the locking script (hex) and its value in sats. */
export interface SourceOutput {
  script: string;
  value: bigint;
}

export interface SourceTx {
  txid: string;
  outputs: SourceOutput[];
}

export interface SourceBlock {
  hash: string;
  height: number;
  prevHash: string;
  /** Header time, epoch seconds. */
  time: number;
  txs: SourceTx[];
}

/**
 * What the Bitcoin watcher asks of a chain backend. Each call costs a bounded number of requests
 * that does not depend on how many addresses are watched: the watcher matches scripts itself, so
 * the backend never learns which addresses belong to the merchant.
 */
export interface ChainSource {
  readonly kind: 'esplora' | 'bitcoin-core';
  tipHeight(): Promise<number>;
  /** Hash of the active chain's tip: one small request tells a watcher at the tip that nothing happened. */
  tipHash(): Promise<string>;
  /** Hash of the active-chain block at `height`, or null above the tip. */
  blockHash(height: number): Promise<string | null>;
  block(hash: string, height: number): Promise<SourceBlock>;
  mempoolTxids(): Promise<string[]>;
  /** The given mempool transactions; ones that left the mempool meanwhile are omitted. */
  transactions(txids: string[]): Promise<SourceTx[]>;
  /** A new block was announced (WebSocket): a source that reuses its tip answer asks again next time. */
  forgetTip?(): void;
  /**
   * Third-party sources only (verified-chain-source.ts): brings the verified header chain up to the
   * sources' tips. False while a first sync is still under way: no block is read until it is done.
   */
  syncHeaders?(): Promise<boolean>;
  /**
   * Third-party sources only: the lowest height at which a block mined at or after `timeMs` can
   * stand, by the verified headers' times (with their allowed skew); never below the verified chain.
   */
  firstHeightMinedFrom?(timeMs: number): number;
}

/** A backend that could not answer (network, HTTP status, malformed reply). Safe to log: never carries credentials. */
export class ChainSourceError extends Error {
  constructor(
    readonly source: ChainSource['kind'],
    message: string,
  ) {
    super(`${source}: ${message}`);
  }
}

/** A backend answered with data that fails verification (a block that does not match its header): broken or lying. */
export class ChainSourceInvalidData extends ChainSourceError {}
