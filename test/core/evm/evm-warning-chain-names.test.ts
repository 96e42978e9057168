import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { createRpcSource } from '../../../core/evm/rpc.ts';
import { createSourceDisagreements } from '../../../core/evm/source-disagreements.ts';
import { recordingLogger } from '../../helpers/database-faults.ts';

const messages = (lines: Array<{ record: Record<string, unknown> }>) => lines.map((line) => line.record.msg);

test("an EVM chain's warnings name that chain, not Base", async () => {
  const { logger, lines } = recordingLogger();
  createSourceDisagreements({ chain: 'polygon', clock: { now: () => 0 }, logger }).record({ source: 'rpc.example', reason: 'reports a transfer no other source has' });
  assert.deepEqual(messages(lines), ['polygon: RPC sources disagree; nothing one source alone reports is counted']);

  // A node that answers single calls and refuses batches (HTTP 400), as some providers do.
  const node = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const call = JSON.parse(body);
      if (Array.isArray(call)) return response.writeHead(400).end('batch requests are not supported');
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: '0x10' }));
    });
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    const source = createRpcSource(url, { fetch, sleep: async () => {}, logger, chain: 'arbitrum' });
    const answers = await source.batch([{ method: 'eth_blockNumber', params: [] }, { method: 'eth_blockNumber', params: [] }]);
    assert.deepEqual(answers, ['0x10', '0x10']);
    assert.equal(messages(lines).at(-1), 'arbitrum: RPC source refuses JSON-RPC batches; single calls from now on');
  } finally {
    node.close();
  }
});

test('no log line of the EVM family is written with a chain name of its own', () => {
  const folder = new URL('../../../core/evm/', import.meta.url);
  const files = (readdirSync(folder, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  const named = files.filter((file) => /\b(?:warn|info|error)\(\s*['"`](?:base|ethereum|polygon|arbitrum):/.test(readFileSync(join(folder.pathname, file), 'utf8')));
  assert.deepEqual(named, []);
});
