import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLayers, ruleBroken } from '../scripts/layers.ts';

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
  assert.equal(ruleBroken('core/invoices/invoice.service.ts', 'core/base/base-invoices.ts'), 'core/invoices/ may not import core/base/');
  assert.equal(ruleBroken('core/btc/watcher.ts', 'core/base/watcher.ts'), 'core/btc/ may not import core/base/');
  assert.equal(ruleBroken('cloud/cloud-app.ts', 'listener/app.ts'), 'cloud/ may not import listener/');
  assert.equal(ruleBroken('cloud/http/routes.ts', 'listener/sandbox/sandbox.ts'), 'cloud/ may not import listener/');
  assert.equal(ruleBroken('cloud/cloud-sandbox.ts', 'listener/config.ts'), 'cloud/ may not import listener/');
  assert.equal(ruleBroken('edge/http/serve.ts', 'listener/app.ts'), 'edge/ may not import listener/');
  assert.equal(ruleBroken('edge/http/mcp-endpoint.ts', 'cloud/cloud-app.ts'), 'edge/ may not import cloud/');
  assert.equal(ruleBroken('core/engine.ts', 'edge/http/serve.ts'), 'core/ may not import edge/');
  assert.equal(ruleBroken('mcp/stdio.ts', 'edge/http/serve.ts'), 'mcp/ may not import edge/');
  assert.equal(ruleBroken('cloud/cloud-app.ts', 'edge/http/serve.ts'), undefined);
  assert.equal(ruleBroken('listener/app.ts', 'edge/http/serve.ts'), undefined);
  assert.equal(ruleBroken('edge/http/mcp-endpoint.ts', 'mcp/server.ts'), undefined);
  // Until the sandbox has its own folder (scripts/layers.ts, cloudSandboxOnListenerSandbox).
  assert.equal(ruleBroken('cloud/cloud-sandbox.ts', 'listener/sandbox/sandbox.ts'), undefined);
  assert.equal(ruleBroken('core/base/watcher.ts', 'core/invoices/chain-adapter.ts'), undefined);
  assert.equal(ruleBroken('bench/mcp.ts', 'cloud/cloud-app.ts'), undefined);
});
