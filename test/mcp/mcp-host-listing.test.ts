import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Icon, Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RunningListener } from '../../listener/app.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { INVOICE_APP_URI } from '../../mcp/app/invoice-app.ts';
import { APPS_CAPABILITY, showApp, startAppsHost, type AppsHost } from '../helpers/apps-host.ts';
import { chromiumMissing } from '../helpers/browser.ts';
import { testAccountKey } from '../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { startTestListener } from '../helpers/listener.ts';
import { connectMcp, type McpSession } from '../helpers/mcp-process.ts';
import { API_VERSION } from '../../shared/version.ts';

/**
 * What agent hosts (Claude and ChatGPT directories, VS Code, Cursor) check before they list a server,
 * checked for every tool as the SDK's real client lists it on stdio and Streamable HTTP: a tool added
 * without a title, its hints, an icon or its visibility fails here.
 */

const API_KEY = 'host-listing-test-key-0123456789';

/**
 * What each tool does, audited by hand: a new tool fails until it is added here. Read-only tools
 * change nothing (so they are idempotent and not destructive); create_invoice adds an invoice each
 * call (no idempotency key, so not idempotent) and changes nothing stored; none leaves the merchant's
 * own listener or Cloud account (no chain, no third party), so none is open-world.
 */
const AUDITED_HINTS: Record<string, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }> = {
  create_invoice: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  get_invoice_status: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  list_invoices: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  list_supported_assets: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  wait_for_payment: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** The strictest name rule hosts apply (Anthropic's and OpenAI's function names): within the spec's 1-128 of [A-Za-z0-9._-]. */
const HOST_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SPEC_TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;
/** Icons travel in every listing: each one's bytes stay small. */
const ICON_MAX_BYTES = 2_048;
const ICON_TYPES = new Set(['image/svg+xml', 'image/png']);

/** The tools the view calls through its host: read from its script, where each call names one. */
const viewScript = readFileSync(new URL('../../mcp/app/invoice-app.client.js', import.meta.url), 'utf8');
const ICON_IMAGES = new URL('../../mcp/icon-images/', import.meta.url);
const ICON_SIDE = 48;
const toolsTheViewCalls = new Set([...viewScript.matchAll(/callServerTool\(\s*\{\s*name:\s*'([^']+)'/g)].map((match) => match[1]!));

function iconProblems(owner: string, icons: Icon[] | undefined): string[] {
  if (!icons?.length) return [`${owner}: no icons`];
  // PNG (and JPEG) are what every client that shows icons must draw; SVG is optional for them.
  const png = icons.some((icon) => icon.mimeType === 'image/png') ? [] : [`${owner}: no PNG icon`];
  return png.concat(icons.flatMap((icon) => {
    const data = /^data:([a-z+/]+);base64,([A-Za-z0-9+/=]+)$/.exec(icon.src);
    if (!data) return [`${owner}: icon ${icon.src.slice(0, 40)}… is not a base64 data: URI`];
    const [, type, base64] = data;
    const bytes = Buffer.from(base64!, 'base64');
    const problems: string[] = [];
    if (!ICON_TYPES.has(type!)) problems.push(`${owner}: icon type ${type} is neither SVG nor PNG`);
    if (icon.mimeType !== type) problems.push(`${owner}: icon mimeType ${icon.mimeType} differs from its data (${type})`);
    if (bytes.length > ICON_MAX_BYTES) problems.push(`${owner}: icon of ${bytes.length} bytes (at most ${ICON_MAX_BYTES})`);
    if (type === 'image/png') {
      const { width, height } = PNG.sync.read(bytes);
      if (!icon.sizes || icon.sizes.join() !== `${width}x${height}`) problems.push(`${owner}: PNG icon of ${width}x${height} says sizes ${JSON.stringify(icon.sizes)}`);
    }
    if (type === 'image/svg+xml') {
      const text = bytes.toString('utf8');
      if (!/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>[\s\S]*<\/svg>$/.test(text)) problems.push(`${owner}: icon is not one <svg> element`);
      if (/<script|\son\w+=|href=|url\(|<foreignObject/i.test(text)) problems.push(`${owner}: icon SVG holds a script, handler or outside reference`);
      if (!icon.sizes?.includes('any')) problems.push(`${owner}: a scalable icon should say sizes ["any"]`);
    }
    return problems;
  }));
}

/** Every rule a host checks, for one listed tool; empty when it passes. */
function toolProblems(tool: Tool): string[] {
  const problems: string[] = [];
  const { name } = tool;
  if (!HOST_TOOL_NAME.test(name) || !SPEC_TOOL_NAME.test(name)) problems.push(`${name}: name longer than 64 or outside [A-Za-z0-9_-]`);
  const title = tool.title ?? '';
  if (!/^[A-Z][^_]{7,63}$/.test(title) || title.toLowerCase() === name.replace(/_/g, ' ')) problems.push(`${name}: title "${title}" is not a human title`);
  if (tool.annotations?.title !== tool.title) problems.push(`${name}: annotations.title "${tool.annotations?.title}" differs from its title`);
  const audited = AUDITED_HINTS[name];
  if (!audited) problems.push(`${name}: not audited (add what it does to AUDITED_HINTS)`);
  const hints = {
    readOnlyHint: tool.annotations?.readOnlyHint,
    destructiveHint: tool.annotations?.destructiveHint,
    idempotentHint: tool.annotations?.idempotentHint,
    openWorldHint: tool.annotations?.openWorldHint,
  };
  if (audited && JSON.stringify(hints) !== JSON.stringify(audited)) problems.push(`${name}: hints ${JSON.stringify(hints)}, audited ${JSON.stringify(audited)}`);
  if (hints.readOnlyHint && (hints.destructiveHint || !hints.idempotentHint)) problems.push(`${name}: read-only yet destructive or not idempotent`);
  if (!hints.readOnlyHint && hints.idempotentHint && !('idempotency_key' in (tool.inputSchema.properties ?? {}))) problems.push(`${name}: writes, says idempotent, takes no idempotency key`);
  problems.push(...iconProblems(name, tool.icons));
  const visibility = (tool._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility;
  if (!visibility?.length) problems.push(`${name}: no _meta.ui.visibility`);
  else {
    const viewCalls = toolsTheViewCalls.has(name);
    if (visibility.includes('app') !== viewCalls) problems.push(`${name}: visibility ${JSON.stringify(visibility)}, yet the view ${viewCalls ? 'calls' : 'never calls'} it`);
    // A helper only the view calls is hidden from the model, and the model is told of every other tool.
    if (!visibility.includes('model') && !viewCalls) problems.push(`${name}: visible to nobody`);
  }
  return problems;
}

function serverProblems(info: Implementation | undefined): string[] {
  if (!info) return ['no serverInfo'];
  const problems = iconProblems('serverInfo', info.icons);
  if (!info.title || info.title === info.name) problems.push(`serverInfo: title "${info.title}" is not a human title`);
  if ((info.description ?? '').length < 40) problems.push('serverInfo: no description');
  return problems;
}

async function connectHttp(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'host-listing-test', version: '1.0.0' }, { capabilities: APPS_CAPABILITY });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  return client;
}

const structured = <T>(result: Awaited<ReturnType<Client['callTool']>>) => {
  assert.ok(!result.isError, JSON.stringify(result.content));
  return result.structuredContent as T;
};

describe('what agent hosts check before listing the server', () => {
  let listener: RunningListener;
  let cloud: RunningCloud;
  let stdio: McpSession;
  let listenerHttp: Client;
  let cloudHttp: Client;
  let clients: [string, Client][];

  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
    cloud = await startTestCloud({ env: { CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com' } });
    const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(9) });
    stdio = await connectMcp({ LISTENER_URL: listener.url, SERVICE_API_KEY: API_KEY });
    listenerHttp = await connectHttp(`${listener.url}/mcp`, API_KEY);
    cloudHttp = await connectHttp(`${cloud.url}/api/v1/mcp`, merchant.api_key);
    clients = [
      ['stdio', stdio.client],
      ['listener over Streamable HTTP', listenerHttp],
      ['Cloud over Streamable HTTP', cloudHttp],
    ];
  });
  after(async () => {
    await stdio?.close();
    await listenerHttp?.close();
    await cloudHttp?.close();
    await listener?.stop();
    await cloud?.stop();
  });

  test('every tool on every endpoint: a human title, audited hints, a name hosts accept, a small safe icon, its visibility', async () => {
    assert.deepEqual([...toolsTheViewCalls].sort(), ['get_invoice_status', 'wait_for_payment'], 'the view script names the tools it calls');
    for (const [endpoint, client] of clients) {
      const { tools } = await client.listTools();
      assert.ok(tools.length >= 4, endpoint);
      assert.deepEqual(tools.flatMap(toolProblems), [], endpoint);
      const names = tools.map((tool) => tool.name);
      assert.equal(new Set(names).size, names.length, `${endpoint}: tool names are unique`);
      const titles = tools.map((tool) => tool.title);
      assert.equal(new Set(titles).size, titles.length, `${endpoint}: titles tell the tools apart`);
    }
    // Cloud lists every tool there is, list_invoices included.
    assert.deepEqual((await cloudHttp.listTools()).tools.map((tool) => tool.name).sort(), Object.keys(AUDITED_HINTS).sort());
  });

  test('the server says who it is: title, description and an icon, the same on every endpoint', async () => {
    for (const [endpoint, client] of clients) assert.deepEqual(serverProblems(client.getServerVersion()), [], endpoint);
    assert.deepEqual(listenerHttp.getServerVersion(), stdio.client.getServerVersion());
    const release = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    assert.equal(stdio.client.getServerVersion()?.version, release, 'the release, not the interface version');
    assert.match(stdio.client.getServerVersion()?.description ?? '', new RegExp(`interface ${API_VERSION.replaceAll('.', '\\.')}`));
  });

  test('the hints match what the tools do: create_invoice makes a new invoice each call and changes none; read-only tools change nothing', async () => {
    const list = async () => structured<{ invoices: { invoice_id: string; status: string; amount: string }[] }>(await cloudHttp.callTool({ name: 'list_invoices', arguments: {} })).invoices;
    const args = { amount_sats: 21_000, memo: 'same arguments' };
    const first = structured<{ invoice: { invoice_id: string } }>(await cloudHttp.callTool({ name: 'create_invoice', arguments: args })).invoice;
    const before = await list();
    const second = structured<{ invoice: { invoice_id: string } }>(await cloudHttp.callTool({ name: 'create_invoice', arguments: args })).invoice;
    assert.notEqual(second.invoice_id, first.invoice_id, 'the same arguments made a second invoice: not idempotent');
    const after = await list();
    assert.deepEqual(after.slice(1), before, 'the earlier invoice is unchanged: not destructive');

    const sampleArgs: Record<string, Record<string, unknown>> = {
      get_invoice_status: { invoice_id: first.invoice_id },
      list_invoices: {},
      list_supported_assets: {},
      wait_for_payment: { invoice_id: first.invoice_id, timeout_s: 1 },
    };
    const { tools } = await cloudHttp.listTools();
    for (const tool of tools.filter((entry) => entry.annotations?.readOnlyHint)) {
      assert.ok(sampleArgs[tool.name], `${tool.name}: add sample arguments to call it`);
      const results = [];
      for (let call = 0; call < 2; call++) results.push(((await cloudHttp.callTool({ name: tool.name, arguments: sampleArgs[tool.name] })) as CallToolResult).structuredContent);
      assert.deepEqual(results[1], results[0], `${tool.name} answers the same when called again`);
      assert.deepEqual(await list(), after, `${tool.name} changed no invoice`);
    }
  });

  describe('in Chromium', { skip: chromiumMissing }, () => {
    let host: AppsHost;
    before(async () => {
      host = await startAppsHost();
    });
    after(() => host?.close());

    test('each PNG icon is its SVG drawn at its size (UPDATE_ICONS=1 draws them again)', async () => {
      const pictures = readdirSync(ICON_IMAGES).filter((file) => file.endsWith('.svg'));
      assert.ok(pictures.length >= 6);
      const page = await host.browser.newPage();
      for (const file of pictures) {
        const pngUrl = new URL(file.replace(/\.svg$/, '.png'), ICON_IMAGES);
        const svg = readFileSync(new URL(file, ICON_IMAGES));
        await page.setContent(`<img id="icon" width="${ICON_SIDE}" height="${ICON_SIDE}" src="data:image/svg+xml;base64,${svg.toString('base64')}">`);
        const drawn = PNG.sync.read(await page.locator('#icon').screenshot({ omitBackground: true }));
        if (process.env.UPDATE_ICONS === '1') writeFileSync(pngUrl, PNG.sync.write(drawn, { deflateLevel: 9 }));
        const committed = PNG.sync.read(readFileSync(pngUrl));
        assert.deepEqual([committed.width, committed.height], [ICON_SIDE, ICON_SIDE], file);
        // Anti-aliasing may differ by a shade between Chromium versions; a moved or recoloured line differs by far more.
        let differing = 0;
        for (let at = 0; at < drawn.data.length; at += 4) {
          if ([0, 1, 2, 3].some((channel) => Math.abs(drawn.data[at + channel]! - committed.data[at + channel]!) > 48)) differing++;
        }
        assert.ok(differing <= 4, `${file}: its PNG is not the SVG drawn (${differing} pixels differ); UPDATE_ICONS=1 draws it again`);
      }
      await page.close();
    });

    test('every icon decodes as an image', async () => {
      const icons = [...(listenerHttp.getServerVersion()?.icons ?? []), ...(await cloudHttp.listTools()).tools.flatMap((tool) => tool.icons ?? [])];
      const page = await host.browser.newPage();
      const sizes = await page.evaluate(
        (sources) =>
          Promise.all(
            sources.map(
              (src) =>
                new Promise<number>((resolve) => {
                  const image = new Image();
                  image.onload = () => resolve(image.naturalWidth);
                  image.onerror = () => resolve(0);
                  image.src = src;
                }),
            ),
          ),
        icons.map((icon) => icon.src),
      );
      await page.close();
      assert.ok(icons.length >= 6);
      assert.ok(sizes.every((width) => width > 0), `icons that do not decode: ${sizes.map((width, at) => (width ? '' : icons[at]!.src.slice(0, 60))).filter(Boolean).join(', ')}`);
    });

    test('the invoice view fits 500 px inline: no horizontal scroll with an invoice in it', async () => {
      const input = { amount_sats: 123_456_789 };
      const created = (await listenerHttp.callTool({ name: 'create_invoice', arguments: input })) as CallToolResult;
      assert.ok(!created.isError);
      const html = ((await listenerHttp.readResource({ uri: INVOICE_APP_URI })).contents[0] as { text: string }).text;
      const page = await host.browser.newPage({ viewport: { width: 800, height: 900 } });
      await page.exposeFunction('callTool', async (params: { name: string; arguments?: Record<string, unknown> }) =>
        // The view follows the invoice; a short wait keeps the page quiet for the measurement.
        listenerHttp.callTool(params.name === 'wait_for_payment' ? { ...params, arguments: { ...params.arguments, timeout_s: 1 } } : params),
      );
      await page.goto(host.url);
      await showApp(page, { html, input, result: created, width: 500 });
      const view = page.frameLocator('iframe');
      await view.locator('#address').filter({ hasText: /\w{20}/ }).waitFor({ timeout: 20_000 });
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
      const size = await frame.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
      assert.equal(size.clientWidth, 500);
      assert.ok(size.scrollWidth <= size.clientWidth, `the view scrolls sideways at 500 px: ${size.scrollWidth} > ${size.clientWidth}`);
      const widest = await frame.evaluate(() => Math.max(...[...document.querySelectorAll('main *')].map((element) => element.getBoundingClientRect().right)));
      assert.ok(widest <= 500, `an element reaches ${widest} px`);
      await page.close();
    });
  });
});
