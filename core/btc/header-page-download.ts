import { addPage, pageFrom, type SourceRun } from './header-source-sync.ts';
import type { SourceHeader } from './header-source.ts';

/** One source's share of a download: its run, and the height up to which it claims headers. */
interface PageWorker {
  run: SourceRun;
  to: number;
}

interface Range {
  from: number;
  top: number;
}

/**
 * Brings the chain up by pages of height fetched from every source at once, each within its own
 * request allowance (and so its own request budget): a source takes the next page nobody has
 * taken, up to its own claimed height, and pages are added in height order as they arrive. A
 * source whose page fails (unreachable, out of requests, a page that does not link or fails the
 * rules) stops; its pages go back to the others. Returns each worker's failure (undefined: none).
 */
export async function downloadPages(startHeight: number, workers: PageWorker[], onPage: (target: number) => void): Promise<unknown[]> {
  const target = Math.max(...workers.map((w) => w.to));
  const failures: unknown[] = workers.map(() => undefined);
  const released: Range[] = [];
  const fetched = new Map<number, { page: SourceHeader[]; worker: number }>();
  let cursor = startHeight;
  let nextToAdd = startHeight;
  let adding = false;

  function take(i: number): Range | null {
    const to = workers[i].to;
    const again = released.findIndex((r) => r.from <= to);
    if (again >= 0) {
      const [range] = released.splice(again, 1);
      if (range.top > to) released.push({ from: to + 1, top: range.top });
      return { from: range.from, top: Math.min(range.top, to) };
    }
    if (cursor > to) return null;
    const range = { from: cursor, top: Math.min(cursor + 9, to) };
    cursor = range.top + 1;
    return range;
  }

  function fail(i: number, error: unknown): void {
    failures[i] = error;
    for (const [from, { page, worker }] of fetched) {
      if (worker !== i) continue;
      fetched.delete(from);
      released.push({ from, top: page[page.length - 1].height });
    }
  }

  // One caller adds at a time; the others leave their pages to it, so pages go in height order.
  async function addReady(): Promise<void> {
    if (adding) return;
    adding = true;
    try {
      for (let ready = fetched.get(nextToAdd); ready; ready = fetched.get(nextToAdd)) {
        fetched.delete(nextToAdd);
        const top = ready.page[ready.page.length - 1].height;
        try {
          await addPage(workers[ready.worker].run, ready.page);
          nextToAdd = top + 1;
          onPage(target);
        } catch (error) {
          released.push({ from: nextToAdd, top });
          fail(ready.worker, error);
        }
      }
    } finally {
      adding = false;
    }
  }

  async function work(i: number): Promise<void> {
    for (let range = take(i); range && failures[i] === undefined; range = take(i)) {
      try {
        const page = await pageFrom(workers[i].run, range.from, range.top);
        const last = page[page.length - 1].height;
        if (last < range.top) released.push({ from: last + 1, top: range.top });
        fetched.set(range.from, { page, worker: i });
      } catch (error) {
        released.push(range);
        fail(i, error);
        return;
      }
      await addReady();
    }
  }

  await Promise.all(workers.map((_, i) => work(i)));
  await addReady();
  return failures;
}
