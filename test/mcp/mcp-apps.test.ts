import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { CHECKOUT_META_KEY, INVOICE_APP_URI } from '../../mcp/app/invoice-app.ts';
import { chromiumMissing, collectPageErrors, saveScreenshot } from '../helpers/browser.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../helpers/btc-chain.ts';
import { APPS_CAPABILITY, showApp, startAppsHost, type AppsHost } from '../helpers/apps-host.ts';

const jsQR = jsQRModule.default;

async function connect(url: string, showsApps: boolean): Promise<Client> {
  const client = new Client({ name: showsApps ? 'apps-host' : 'plain-host', version: '1.0.0' }, { capabilities: showsApps ? APPS_CAPABILITY : {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('MCP Apps: the invoice view', () => {
  let ctx: BtcWatchContext;
  let plain: Client;
  let apps: Client;

  before(async () => {
    ctx = await startBtcWatchContext('esplora');
    plain = await connect(`${ctx.listener.url}/mcp`, false);
    apps = await connect(`${ctx.listener.url}/mcp`, true);
  });
  after(async () => {
    await plain?.close();
    await apps?.close();
    await ctx?.close();
  });

  test('create_invoice and get_invoice_status name the ui:// view, listed and readable with the extension MIME type and a CSP that allows nothing external', async () => {
    const { tools } = await plain.listTools();
    for (const name of ['create_invoice', 'get_invoice_status']) {
      const tool = tools.find((t) => t.name === name)!;
      assert.equal((tool._meta as { ui: { resourceUri?: string } }).ui.resourceUri, INVOICE_APP_URI, name);
    }
    const { resources } = await plain.listResources();
    const listed = resources.find((resource) => resource.uri === INVOICE_APP_URI);
    assert.equal(listed?.mimeType, RESOURCE_MIME_TYPE);
    const read = await plain.readResource({ uri: INVOICE_APP_URI });
    const content = read.contents[0] as { mimeType: string; text: string; _meta?: { ui?: { csp?: Record<string, unknown[]> } } };
    assert.equal(content.mimeType, 'text/html;profile=mcp-app');
    assert.deepEqual(content._meta?.ui?.csp, { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(content.text)?.[1];
    assert.match(csp!, /^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; img-src data:;/);
    assert.doesNotMatch(content.text, /\b(src|href)="(https?:)?\/\//, 'nothing loaded from elsewhere');
    assert.doesNotMatch(content.text, /<script[^>]+src=/, 'no external script');
  });

  test('a host without MCP Apps gets the same text, image and structured content as before, and no view extras', async () => {
    const created = (await plain.callTool({ name: 'create_invoice', arguments: { amount_sats: 12_000 } })) as CallToolResult;
    assert.deepEqual(created.content.map((block) => block.type), ['text', 'image']);
    assert.equal(created._meta, undefined);
    const invoiceId = (created.structuredContent as { invoice: { invoice_id: string } }).invoice.invoice_id;
    const status = (await plain.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoiceId } })) as CallToolResult;
    assert.deepEqual(status.content.map((block) => block.type), ['text']);
    assert.equal(status._meta, undefined);

    const forApps = (await apps.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoiceId } })) as CallToolResult;
    assert.deepEqual(forApps.content, status.content);
    assert.deepEqual(forApps.structuredContent, status.structuredContent);
    const extras = forApps._meta?.[CHECKOUT_META_KEY] as { view: { shop_name: string; invoice_id: string }; qr_png: string };
    assert.equal(extras.view.shop_name, 'Shop');
    assert.equal(extras.view.invoice_id, invoiceId);
    assert.ok(extras.qr_png.length > 100);
  });

  describe('in a host page built with the extension AppBridge, in Chromium', { skip: chromiumMissing }, () => {
    let host: AppsHost;
    before(async () => {
      host = await startAppsHost();
    });
    after(() => host?.close());

    test('shows the shop, amount and a QR code of the payment URI, and turns to Paid when the invoice confirms', async () => {
      const input = { amount_sats: 33_000 };
      const created = (await apps.callTool({ name: 'create_invoice', arguments: input })) as CallToolResult;
      const invoice = (created.structuredContent as { invoice: { invoice_id: string; receive_address: string; amount_btc: string; qr_uri: string } }).invoice;
      const html = ((await apps.readResource({ uri: INVOICE_APP_URI })).contents[0] as { text: string }).text;

      const page = await host.browser.newPage();
      const errors = collectPageErrors(page);
      const calls: string[] = [];
      await page.exposeFunction('callTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
        calls.push(params.name);
        return apps.callTool(params, undefined, { timeout: 120_000 });
      });
      await page.goto(host.url);
      await showApp(page, { html, input, result: created, width: 480 });
      const view = page.frameLocator('iframe');
      await view.locator('#amount').filter({ hasText: 'BTC' }).waitFor({ timeout: 20_000 });
      assert.equal(await view.locator('#amount').textContent(), `Pay ${invoice.amount_btc} BTC`);
      assert.equal(await view.locator('#shop').textContent(), 'Shop');
      assert.equal(await view.locator('#address').textContent(), invoice.receive_address);
      assert.equal(await view.locator('#status').textContent(), 'Waiting for payment');
      const qr = PNG.sync.read(await view.locator('#qr').screenshot());
      assert.equal(jsQR(new Uint8ClampedArray(qr.data), qr.width, qr.height)?.data, invoice.qr_uri, 'the QR code shown decodes to the payment URI');
      await saveScreenshot(page, 'mcp-app-pending');

      // The view follows the invoice through the bridge (wait_for_payment) before it is paid.
      const deadline = Date.now() + 20_000;
      while (!calls.includes('wait_for_payment')) {
        if (Date.now() > deadline) throw new Error(`the view never called wait_for_payment (calls: ${calls.join(', ')})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      ctx.chain.pay([{ address: invoice.receive_address, value: 33_000n }]);
      ctx.chain.mine(1);
      await ctx.sync();
      await view.locator('#status').filter({ hasText: 'Paid' }).waitFor({ timeout: 20_000 });
      assert.equal(await view.locator('#pay').isVisible(), false, 'nothing left to pay');
      await saveScreenshot(page, 'mcp-app-paid');
      await page.close();
      // zod (inside the extension's client) probes once whether eval is allowed; the view's CSP refuses it, as it should.
      assert.deepEqual(errors.filter((e) => !/evaluate a string as JavaScript/.test(e)), []);
    });
  });
});
