/**
 * A typed client of the listener's HTTP API in a few lines: `api.d.ts` is generated from
 * openapi/openapi.json by openapi-typescript, and openapi-fetch checks every path, body and answer
 * against it at compile time. Creates a Bitcoin invoice and reads it back.
 *
 *   SERVICE_URL=http://127.0.0.1:8787 SERVICE_API_KEY=sk_… node --import tsx client.ts
 */
import createClient from 'openapi-fetch';
import type { paths } from './api.d.ts';

const baseUrl = process.env.SERVICE_URL ?? 'http://127.0.0.1:8787';
const apiKey = process.env.SERVICE_API_KEY;

const client = createClient<paths>({ baseUrl, headers: apiKey ? { 'X-Service-Api-Key': apiKey } : {} });

const created = await client.POST('/invoice', { body: { chain: 'btc', amount_sats: 25_000, memo: 'typed client example' } });
if (created.error) throw new Error(`POST /invoice answered ${created.response.status}: ${created.error.error.code} ${created.error.error.message}`);
const invoice = created.data;
// The answer is a union over the chains; narrowing on `chain` gives the Bitcoin fields.
if (invoice.chain !== 'btc') throw new Error(`expected a Bitcoin invoice, got ${invoice.chain}`);
console.log(`created ${invoice.invoice_id}: pay ${invoice.amount_btc} BTC to ${invoice.receive_address}`);

const read = await client.GET('/invoice/{id}', { params: { path: { id: invoice.invoice_id } } });
if (read.error) throw new Error(`GET /invoice/{id} answered ${read.response.status}: ${read.error.error.code}`);
console.log(`read ${read.data.invoice_id}: ${read.data.status}, expires ${read.data.expires_at}`);
