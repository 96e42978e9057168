import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { openCoreDatabase } from '../../../core/schema.ts';
import { invoiceRow, insertRows } from '../../helpers/invoice-rows.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';
import { spawnListener, type ListenerProcess } from '../../helpers/process.ts';

const KEY = 'sk_export_test_key_0123456789';
const INVOICES = 100_000;
const MB = 1024 * 1024;
/** The bound the issue sets, on what the export adds to the server's resident memory. */
const RSS_GROWTH_LIMIT = 100 * MB;
/**
 * The server's V8 old space: an idle listener uses about 50 MB of heap, so an export that held its
 * rows (100,000 of them take well over 100 MB as objects) runs out of it and the process dies, while a
 * streamed one lives within it. Without a cap V8 lets garbage pile up to a few hundred MB before a
 * full collection, which says nothing about what the export holds.
 */
const HEAP_CAP = '--max-old-space-size=64';

/** The process's resident set now (VmRSS) and at its peak so far (VmHWM), in bytes, as Linux counts them. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

describe('CSV export of 100,000 invoices', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  let listener: ListenerProcess;

  before(async () => {
    const url = tempSqliteUrl();
    const database = await openCoreDatabase(url, defaultChains);
    const start = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: INVOICES }, (_, n) =>
      invoiceRow('m_own', `inv_${String(n).padStart(6, '0')}`, {
        created_at: start + n * 1000,
        chain: n % 2 ? 'base' : 'btc',
        status: n % 3 ? 'confirmed' : 'expired',
        order_id: `order-${n}`,
        memo: n % 2 ? null : `Order ${n}, "gift"`,
        metadata: `{"customer":"c${n}"}`,
      }),
    );
    await database.db.transaction().execute((trx) => insertRows(trx, rows));
    await database.close();
    // The production build as `service start` runs it, in its own process, so its memory is its own.
    listener = await spawnListener({ DATABASE_URL: url, SERVICE_API_KEY: KEY, MERCHANT_ID: 'm_own', SERVICE_RATE_LIMIT: 'off', LOG_LEVEL: 'warn', NODE_OPTIONS: HEAP_CAP });
  });
  after(() => listener?.stop());

  it('streams every row within a 64 MB heap, its resident memory growing less than 100 MB', async () => {
    const pid = listener.child.pid!;
    const before = memoryOf(pid);
    const started = performance.now();
    const response = await fetch(`${listener.url}/invoices?format=csv`, { headers: { 'X-Service-Api-Key': KEY } });
    assert.equal(response.status, 200);
    const decoder = new TextDecoder();
    let lines = 0;
    let bytes = 0;
    let last = '';
    let sampled = before.rss;
    for await (const chunk of response.body!) {
      bytes += chunk.byteLength;
      const text = decoder.decode(chunk, { stream: true });
      // Line feeds, not CRLF pairs: a pair may be split between two chunks.
      lines += text.split('\n').length - 1;
      last = (last + text).slice(-200);
      sampled = Math.max(sampled, memoryOf(pid).rss);
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = memoryOf(pid).peak;
    // One line a row, but memo fields hold no line break here: the header plus 100,000.
    assert.equal(lines, INVOICES + 1);
    assert.match(last, /^.*inv_000000,btc,BTC,/m, 'the oldest invoice comes last');
    console.log(`export: ${INVOICES} rows, ${(bytes / MB).toFixed(1)} MB of CSV in ${seconds.toFixed(1)} s; server RSS before ${(before.rss / MB).toFixed(1)} MB, highest sampled during ${(sampled / MB).toFixed(1)} MB, peak (VmHWM, since start) ${(peak / MB).toFixed(1)} MB`);
    assert.ok(peak - before.rss < RSS_GROWTH_LIMIT, `the export added ${((peak - before.rss) / MB).toFixed(1)} MB to the server's resident memory`);
  });
});
