import type { Clock } from './clock.ts';

export interface SharedAnswers<K, V> {
  /** The answer for `key`: a fresh enough one (or one in flight) is shared, else `load` runs once. */
  get(key: K, load: () => Promise<V>): Promise<V>;
  /** Whether `get` would answer `key` without loading. */
  has(key: K): boolean;
  /** Forgets every answer, including those still in flight: later callers load anew. */
  clear(): void;
}

/**
 * Answers to one kind of question, shared by every caller: a request in flight is joined rather
 * than repeated, and its answer is reused while younger than `maxAgeMs` (Infinity for answers that
 * never change, such as a block by hash). At most `maxEntries` are kept, least recently used
 * dropped first, so memory stays bounded however many keys pass through. Failures are not kept:
 * the next caller asks again.
 */
export function sharedAnswers<K, V>(options: { clock: Clock; maxAgeMs: number; maxEntries: number }): SharedAnswers<K, V> {
  const { clock, maxAgeMs, maxEntries } = options;
  const entries = new Map<K, { at: number; answer: Promise<V> }>();
  const fresh = (entry: { at: number } | undefined): entry is { at: number; answer: Promise<V> } =>
    entry !== undefined && clock.now() - entry.at < maxAgeMs;

  return {
    get(key, load) {
      const hit = entries.get(key);
      if (fresh(hit)) {
        // Map order is insertion order: re-inserting marks the entry as recently used.
        entries.delete(key);
        entries.set(key, hit);
        return hit.answer;
      }
      const entry = { at: clock.now(), answer: load() };
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      entry.answer.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return entry.answer;
    },
    has: (key) => fresh(entries.get(key)),
    clear() {
      entries.clear();
    },
  };
}

export interface SharedChainAnswers<H, K, V> {
  /** The chain's head (tip height, block number), shared like any answer; a fresh one that moved forgets every `atHeight` answer. */
  head(load: () => Promise<H>): Promise<H>;
  /** An answer that holds only while the chain below the head stays as it is (a block hash by height, a block by number). */
  atHeight(key: K, load: () => Promise<V>): Promise<V>;
  /** Forgets the head (and one in flight): the next caller reads it anew. */
  forgetHead(): void;
}

/**
 * One chain endpoint's head and its answers by height, shared by every watcher of it. Answers by
 * height are forgotten whenever the head moves, so a reorg is seen within `maxAgeMs`.
 */
export function sharedChainAnswers<H, K, V>(options: { clock: Clock; maxAgeMs: number }): SharedChainAnswers<H, K, V> {
  const { clock, maxAgeMs } = options;
  const head = sharedAnswers<'head', H>({ clock, maxAgeMs, maxEntries: 1 });
  const byHeight = sharedAnswers<K, V>({ clock, maxAgeMs, maxEntries: 256 });
  let lastHead: H | null = null;
  return {
    head: (load) =>
      head.get('head', async () => {
        const current = await load();
        if (current !== lastHead) byHeight.clear();
        lastHead = current;
        return current;
      }),
    atHeight: (key, load) => byHeight.get(key, load),
    forgetHead: () => head.clear(),
  };
}
