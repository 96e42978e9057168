import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { invoiceCsvColumns } from '../../../shared/index.ts';
import type { InvoiceRow } from '../../../core/invoices/invoice.repository.ts';
import type { CoreTables } from '../../../core/schema.ts';
import type { Kysely } from 'kysely';
import { startTestCloud, signupMerchant } from '../../helpers/cloud.ts';
import { testDatabases, type CreatedDatabase } from '../../helpers/databases.ts';
import { BIP84_ZPUB, startTestListener } from '../../helpers/listener.ts';
import { invoiceRow, insertRows, parseCsv, ROW_EVM_ADDRESS } from '../../helpers/invoice-rows.ts';

const KEY = 'sk_list_test_key_0123456789';
const CHECKOUT_BASE = 'https://pay.example.com';
const T = Date.UTC(2026, 10, 1, 12, 0, 0);
const minute = 60_000;
const id = (prefix: string, n: number) => `inv_${prefix}${String(n).padStart(2, '0')}`;

/** One merchant's invoices: statuses, chains, a tie on created_at, shop fields that need quoting, a lapsed pending one. */
function ownRows(merchantId: string): InvoiceRow[] {
  const rows = Array.from({ length: 12 }, (_, n) => {
    // Invoices 6 and 7 are created in the same millisecond, on both sides of a 5-entry page: the id orders them.
    const created_at = T + (n === 7 ? 6 : n) * minute;
    const confirmed = n % 3 === 0;
    return invoiceRow(merchantId, id('a', n), {
      created_at,
      chain: n >= 6 && n % 2 === 0 ? 'base' : 'btc',
      status: confirmed ? 'confirmed' : 'pending',
      tx_hash: confirmed ? `tx${n}` : null,
      paid_at: confirmed ? created_at + minute : null,
    });
  });
  Object.assign(rows[7]!, { order_id: 'ORD-7', memo: 'Hello, "world"\nsecond line', metadata: '{"sku":"x,1"}', price_amount: '12.50', price_currency: 'EUR', redirect_url: 'https://shop.example/done' });
  Object.assign(rows[8]!, { order_id: '=HYPERLINK("http://evil.example")' });
  // Pending and past its expiry: listed, and matched, as expired.
  Object.assign(rows[10]!, { expires_at: rows[10]!.created_at + 1 });
  return rows;
}

/** Another merchant's: the same order id and the same EVM receive address as the first's, never listed for it. */
function otherRows(merchantId: string): InvoiceRow[] {
  return [
    invoiceRow(merchantId, id('b', 0), { created_at: T + 2 * minute, order_id: 'ORD-7' }),
    invoiceRow(merchantId, id('b', 1), { created_at: T + 30 * minute, chain: 'base' }),
    invoiceRow(merchantId, id('b', 2), { created_at: T - minute, status: 'confirmed' }),
  ];
}

const listedStatus = (row: InvoiceRow) => (row.status === 'pending' && row.expires_at <= Date.now() ? 'expired' : row.status);
const newestFirst = (rows: InvoiceRow[]) => [...rows].sort((a, b) => b.created_at - a.created_at || (a.invoice_id < b.invoice_id ? 1 : -1)).map((row) => row.invoice_id);
const iso = (ms: number) => new Date(ms).toISOString();

interface Edition {
  name: string;
  base: string;
  headers: Record<string, string>;
  own: InvoiceRow[];
  other: InvoiceRow[];
  /** Cloud's entries and CSV carry checkout_url. */
  checkoutUrl: boolean;
}

/** What both editions answer alike, over HTTP. */
function listBehaviour(edition: () => Edition) {
  const get = async (query: string, headers: Record<string, string> = {}) => {
    const { base, headers: key } = edition();
    const response = await fetch(`${base}${query ? `?${query}` : ''}`, { headers: { ...key, ...headers } });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const getJson = async (query: string) => {
    const answer = await get(query);
    return { ...answer, json: JSON.parse(answer.text) };
  };
  const allPages = async (query: string) => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, json } = await getJson(`${query}${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(status, 200, JSON.stringify(json));
      assert.ok(json.invoices.length <= 5);
      ids.push(...json.invoices.map((entry: { invoice_id: string }) => entry.invoice_id));
      cursor = json.next_cursor;
      pages++;
    } while (cursor);
    return { ids, pages };
  };

  it('pages through every invoice of the merchant once, newest first, the id breaking ties, and none of another merchant', async () => {
    const { own } = edition();
    const { ids, pages } = await allPages('limit=5');
    assert.deepEqual(ids, newestFirst(own));
    assert.equal(pages, 3);
    const { json } = await getJson('');
    assert.equal(json.next_cursor, null, 'default page of 25 holds all 12');
    assert.equal(json.invoices.find((entry: { invoice_id: string }) => entry.invoice_id === id('a', 10)).status, 'expired');
    const entry = json.invoices.find((e: { invoice_id: string }) => e.invoice_id === id('a', 6));
    assert.deepEqual(Object.keys(entry).filter((k) => k !== 'checkout_url'), ['invoice_id', 'chain', 'asset', 'amount', 'receive_address', 'status', 'tx_hash', 'created_at', 'paid_at', 'expires_at', 'order_id', 'metadata', 'memo', 'redirect_url']);
    assert.equal(entry.amount, '2.500000');
    assert.equal(entry.checkout_url, edition().checkoutUrl ? `${CHECKOUT_BASE}/pay/${id('a', 6)}` : undefined);
  });

  const filterCases: [string, (row: InvoiceRow) => boolean][] = [
    ['status=confirmed', (row) => listedStatus(row) === 'confirmed'],
    ['status=pending&chain=btc', (row) => listedStatus(row) === 'pending' && row.chain === 'btc'],
    ['chain=base', (row) => row.chain === 'base'],
    ['asset=usdc', (row) => row.asset === 'USDC'],
    ['asset=BTC', (row) => row.asset === 'BTC'],
    ['order_id=ORD-7', (row) => row.order_id === 'ORD-7'],
    [`q=${id('a', 3)}`, (row) => row.invoice_id === id('a', 3)],
    [`q=${id('b', 1)}`, () => false],
    ['q=ORD-7', (row) => row.order_id === 'ORD-7'],
    [`q=${ROW_EVM_ADDRESS.toLowerCase()}`, (row) => row.receive_address === ROW_EVM_ADDRESS],
    [`created_from=${iso(T + 4 * minute)}`, (row) => row.created_at >= T + 4 * minute],
    [`created_to=${encodeURIComponent(iso(T + 4 * minute))}`, (row) => row.created_at < T + 4 * minute],
    [`created_from=${encodeURIComponent('2026-11-01T13:04:00+01:00')}&created_to=${iso(T + 8 * minute)}`, (row) => row.created_at >= T + 4 * minute && row.created_at < T + 8 * minute],
    ['created_to=2026-11-01', () => false],
    ['created_from=2026-11-02', () => false],
  ];
  for (const [query, keep] of filterCases) {
    it(`filter ${decodeURIComponent(query)}: exactly the merchant's matching invoices, paged`, async () => {
      const { ids } = await allPages(`${query}&limit=5`);
      assert.deepEqual(ids, newestFirst(edition().own.filter(keep)));
    });
  }

  it('lists a pending invoice past its expiry as expired, never as pending, and stores it so', async () => {
    const lapsed = id('a', 10);
    const pending = await getJson('status=pending');
    assert.ok(!pending.json.invoices.some((entry: { invoice_id: string }) => entry.invoice_id === lapsed));
    const expired = await getJson('status=expired');
    assert.deepEqual(expired.json.invoices.map((entry: { invoice_id: string }) => entry.invoice_id), [lapsed]);
  });

  it('clamps limit to 1-100 instead of refusing it', async () => {
    assert.equal((await getJson('limit=0')).json.invoices.length, 1);
    assert.equal((await getJson('limit=-3')).json.invoices.length, 1);
    assert.equal((await getJson('limit=5000')).json.invoices.length, 12);
  });

  const refusals: [string, string][] = [
    ['state=pending', 'state'],
    ['status=paid', 'status'],
    ['status=pending&status=confirmed', 'status'],
    ['chain=dogecoin', 'chain'],
    ['asset=eth', 'asset'],
    ['created_from=yesterday', 'created_from'],
    ['created_to=2026-11-01T12:00:00', 'created_to'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from('[1,2]').toString('base64url')}`, 'cursor'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['format=xml', 'format'],
  ];
  for (const [query, name] of refusals) {
    it(`refuses ${query.slice(0, 40)} with bad_query naming ${name}`, async () => {
      const { status, json } = await getJson(query);
      assert.equal(status, 400);
      assert.equal(json.error.code, 'bad_query');
      assert.match(json.error.message, new RegExp(`\\b${name}\\b`));
    });
  }

  it('refuses a request without the key', async () => {
    const response = await fetch(edition().base);
    assert.equal(response.status, 401);
    assert.equal((await response.json()).error.code, 'unauthorized');
  });

  it('exports every matching invoice as RFC 4180 CSV, by Accept or format, ignoring limit; cells that would run as formulas are quoted', async () => {
    const { own, checkoutUrl } = edition();
    const byFormat = await get('format=csv&limit=2');
    const byAccept = await get('limit=2', { Accept: 'text/csv' });
    assert.equal(byFormat.status, 200);
    assert.equal(byFormat.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(byFormat.headers.get('content-disposition')!, /^attachment; filename="invoices-\d{8}T\d{6}Z\.csv"$/);
    assert.equal(byAccept.text, byFormat.text);
    const [header, ...records] = parseCsv(byFormat.text);
    assert.deepEqual(header, [...invoiceCsvColumns, ...(checkoutUrl ? ['checkout_url'] : [])]);
    assert.deepEqual(records.map((record) => record[0]), newestFirst(own));
    const field = (record: string[], name: string) => record[header!.indexOf(name)];
    const shop = records.find((record) => record[0] === id('a', 7))!;
    assert.equal(field(shop, 'memo'), 'Hello, "world"\nsecond line');
    assert.equal(field(shop, 'metadata'), '{"sku":"x,1"}');
    assert.equal(field(shop, 'order_id'), 'ORD-7');
    assert.equal(field(shop, 'redirect_url'), 'https://shop.example/done');
    assert.equal(field(shop, 'price_amount'), '12.50');
    assert.equal(field(shop, 'price_currency'), 'EUR');
    assert.equal(field(shop, 'tx_hash'), '');
    assert.equal(field(shop, 'amount'), '0.00001000');
    assert.equal(field(records.find((record) => record[0] === id('a', 8))!, 'order_id'), '\'=HYPERLINK("http://evil.example")');
    assert.equal(field(records.find((record) => record[0] === id('a', 10))!, 'status'), 'expired');
    if (checkoutUrl) assert.equal(field(shop, 'checkout_url'), `${CHECKOUT_BASE}/pay/${id('a', 7)}`);

    const filtered = parseCsv((await get('format=csv&chain=base')).text).slice(1);
    assert.deepEqual(filtered.map((record) => record[0]), newestFirst(own.filter((row) => row.chain === 'base')));
    const none = await get('format=csv&q=nothing');
    assert.deepEqual(parseCsv(none.text), [header]);
  });

  it("never shows another merchant's invoice, in a page or an export", async () => {
    const { other } = edition();
    const texts = [(await get('limit=100')).text, (await get('q=ORD-7')).text, (await get('format=csv')).text];
    for (const text of texts) for (const row of other) assert.ok(!text.includes(row.invoice_id), `${row.invoice_id} listed`);
  });
}

for (const kind of testDatabases) {
  describe(`invoice lists on ${kind.name}`, { skip: kind.skip }, () => {
    describe('listener GET /invoices', () => {
      let created: CreatedDatabase;
      let listener: Awaited<ReturnType<typeof startTestListener>>;
      let edition: Edition;
      before(async () => {
        created = await kind.create();
        listener = await startTestListener({ env: { DATABASE_URL: created.url, SERVICE_API_KEY: KEY, MERCHANT_ID: 'm_own' } });
        const own = ownRows('m_own');
        const other = otherRows('m_other');
        await insertRows(listener.database.db, [...own, ...other]);
        edition = { name: 'listener', base: `${listener.url}/invoices`, headers: { 'X-Service-Api-Key': KEY }, own, other, checkoutUrl: false };
      });
      after(async () => {
        await listener.stop();
        await created.drop();
      });
      listBehaviour(() => edition);
    });

    describe('Cloud GET /api/v1/invoices', () => {
      let created: CreatedDatabase;
      let cloud: Awaited<ReturnType<typeof startTestCloud>>;
      let edition: Edition;
      before(async () => {
        created = await kind.create();
        cloud = await startTestCloud({ env: { DATABASE_URL: created.url, CLOUD_CHECKOUT_BASE_URL: CHECKOUT_BASE, CLOUD_SIGNUP_RATE_LIMIT: '1000,1000' } });
        const a = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
        const b = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
        const own = ownRows(a.merchant_id);
        const other = otherRows(b.merchant_id);
        await insertRows(cloud.database.db as unknown as Kysely<CoreTables>, [...own, ...other]);
        edition = { name: 'cloud', base: `${cloud.url}/api/v1/invoices`, headers: { 'X-Service-Api-Key': a.api_key }, own, other, checkoutUrl: true };
      });
      after(async () => {
        await cloud.stop();
        await created.drop();
      });
      listBehaviour(() => edition);
    });
  });
}
