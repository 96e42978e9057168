import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chainNameAllowList, chainNameReport, chainNamesIn, checkLayers, ruleBroken } from '../../scripts/layers.ts';

test('the layout holds: no import cycle between files, no import against the layers', () => {
  const report = checkLayers();
  assert.ok(report.files > 150, `only ${report.files} files were read: the checker lost its way`);
  assert.ok(report.imports > 400, `only ${report.imports} imports were read`);
  assert.deepEqual(report.cycles, [], 'import cycles');
  assert.deepEqual(report.violations, [], 'imports that run against the layers (scripts/layers.ts says which rule)');
});

test('the layer rules refuse what runs back up and allow what runs down', () => {
  assert.equal(ruleBroken('core/db/migrate.ts', 'cloud/cloud.tables.ts'), 'core/ may not import cloud/');
  assert.equal(ruleBroken('listener/cli/start.ts', 'cloud/cloud-app.ts'), 'listener/ may not import cloud/');
  assert.equal(ruleBroken('mcp/stdio.ts', 'listener/config.ts'), 'mcp/ may not import listener/');
  assert.equal(ruleBroken('shared/invoice.ts', 'core/clock.ts'), 'shared/ may not import core/');
  assert.equal(ruleBroken('core/invoices/invoice.service.ts', 'core/evm/evm-invoices.ts'), 'core/invoices/ may not import core/evm/');
  assert.equal(ruleBroken('core/btc/watcher.ts', 'core/evm/watcher.ts'), 'core/btc/ may not import core/evm/');
  assert.equal(ruleBroken('cloud/cloud-app.ts', 'listener/app.ts'), 'cloud/ may not import listener/');
  assert.equal(ruleBroken('cloud/cloud-sandbox.ts', 'listener/cli/start.ts'), 'cloud/ may not import listener/');
  assert.equal(ruleBroken('sandbox/sandbox.ts', 'listener/config.ts'), 'sandbox/ may not import listener/');
  assert.equal(ruleBroken('sandbox/sandbox.ts', 'cloud/cloud-app.ts'), 'sandbox/ may not import cloud/');
  assert.equal(ruleBroken('core/engine.ts', 'sandbox/sandbox.ts'), 'core/ may not import sandbox/');
  assert.equal(ruleBroken('cloud/cloud-sandbox.ts', 'listener/config.ts'), 'cloud/ may not import listener/');
  assert.equal(ruleBroken('edge/http/serve.ts', 'listener/app.ts'), 'edge/ may not import listener/');
  assert.equal(ruleBroken('edge/http/mcp-endpoint.ts', 'cloud/cloud-app.ts'), 'edge/ may not import cloud/');
  assert.equal(ruleBroken('core/engine.ts', 'edge/http/serve.ts'), 'core/ may not import edge/');
  assert.equal(ruleBroken('mcp/stdio.ts', 'edge/http/serve.ts'), 'mcp/ may not import edge/');
  assert.equal(ruleBroken('cloud/cloud-app.ts', 'edge/http/serve.ts'), undefined);
  assert.equal(ruleBroken('listener/app.ts', 'edge/http/serve.ts'), undefined);
  assert.equal(ruleBroken('edge/http/mcp-endpoint.ts', 'mcp/server.ts'), undefined);
  assert.equal(ruleBroken('cloud/cloud-sandbox.ts', 'sandbox/sandbox.ts'), undefined);
  assert.equal(ruleBroken('listener/cli/start.ts', 'sandbox/sandbox.ts'), undefined);
  assert.equal(ruleBroken('core/evm/watcher.ts', 'core/invoices/chain-adapter.ts'), undefined);
  assert.equal(ruleBroken('bench/mcp.ts', 'cloud/cloud-app.ts'), undefined);
});

test('chains are named only in their own folders, the list of default chains and the contract\'s chain list; the files still naming them can only get fewer', () => {
  const report = chainNameReport();
  const named = Object.keys(report.files);
  assert.deepEqual(
    named.filter((file) => !chainNameAllowList.includes(file)),
    [],
    'these files name a chain (\'base\', base_xpub, …): find it in the chains passed in, or in shared/chains.ts, instead',
  );
  assert.deepEqual(
    chainNameAllowList.filter((file) => !named.includes(file)),
    [],
    'these files no longer name a chain: take them off chainNameAllowList in scripts/layers.ts',
  );
  assert.ok(report.count > 0 && report.count <= 89, `${report.count} chain names outside the chain folders: the count only goes down`);
});

test('the chain-name check sees literals and per-chain identifiers, not comments or assets', () => {
  assert.equal(chainNamesIn(`if (row.chain === 'base') return "eth";`), 2);
  assert.equal(chainNamesIn('const key = merchant.base_xpub ?? merchant.btc_xpub; const p = `polygon`;'), 3);
  assert.equal(chainNamesIn(`// the 'base' chain\n/* 'btc' */ const asset = 'BTC'; const basement = 'based';`), 0);
  assert.ok(!Object.keys(chainNameReport().files).some((file) => ['core/evm/', 'core/btc/', 'core/chains/'].some((home) => file.startsWith(home))));
});

test('the editions and the core\'s root files import no chain folder: they are given their chains', () => {
  assert.equal(ruleBroken('core/engine.ts', 'core/btc/receive-address-book.ts'), 'core/*.ts may not import core/btc/');
  assert.equal(ruleBroken('core/schema.ts', 'core/evm/evm.tables.ts'), 'core/*.ts may not import core/evm/');
  assert.equal(ruleBroken('core/engine.ts', 'core/chains/default-chains.ts'), 'core/*.ts may not import core/chains/');
  assert.equal(ruleBroken('core/webhooks/start-delivery.ts', 'core/evm/chain.ts'), 'core/webhooks/ may not import core/evm/');
  assert.equal(ruleBroken('core/x402/x402-settings.ts', 'core/evm/evm-definition.ts'), 'core/x402/ may not import core/evm/');
  assert.equal(ruleBroken('core/btc/bitcoin.ts', 'core/chains/default-chains.ts'), 'core/btc/ may not import core/chains/');
  assert.equal(ruleBroken('core/btc/bitcoin.ts', 'core/chain-definition.ts'), undefined);
  assert.equal(ruleBroken('core/engine.ts', 'core/chain-definition.ts'), undefined);
  assert.equal(ruleBroken('listener/app.ts', 'core/btc/btc-runtime.ts'), 'listener/ may not import a chain folder (core/btc/): it is given its chains');
  assert.equal(ruleBroken('cloud/chain-watchers.ts', 'core/evm/evm-runtime.ts'), 'cloud/ may not import a chain folder (core/evm/): it is given its chains');
  assert.equal(ruleBroken('edge/checkout/page.ts', 'core/evm/amount.ts'), 'edge/ may not import a chain folder (core/evm/): it is given its chains');
  assert.equal(ruleBroken('mcp/server.ts', 'core/btc/amount.ts'), 'mcp/ may not import a chain folder (core/btc/): it is given its chains');
  assert.equal(ruleBroken('listener/app.ts', 'core/chain-definition.ts'), undefined);
  assert.equal(ruleBroken('bin/cli.ts', 'core/chains/default-chains.ts'), undefined);
  assert.equal(ruleBroken('cloud/merchants/signup.ts', 'core/btc/btc-merchant.ts'), 'cloud/ may not import a chain folder (core/btc/): it is given its chains');
  // Pinned: no edition file imports a chain folder, and there is no allow-list to add one to.
  assert.deepEqual(checkLayers().chainImporters, [], 'no edition file may import a chain folder');
});
