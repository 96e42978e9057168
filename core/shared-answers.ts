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
