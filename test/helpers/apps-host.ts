import { createServer, type Server } from 'node:http';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { launchChromium } from './browser.ts';
import { repoRoot } from './child.ts';

/** What a host that shows MCP Apps declares when it connects (the extension's capability). */
export const APPS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };

/**
 * A minimal MCP Apps host page: the extension's own AppBridge (bundled for the browser) talking to
 * the view in a sandboxed iframe; the view's tool calls go to `window.callTool`, which the test
 * answers with a real MCP client.
 */
const HOST_SOURCE = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.showApp = async (html, input, result, width) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.width = width + 'px';
  iframe.style.height = '720px';
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {} });
  bridge.oncalltool = (params) => window.callTool(params);
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: input });
    void bridge.sendToolResult(result);
  };
  // Listening before the view loads: its first message is its initialize request.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
};
`;

async function serveHostPage(): Promise<{ url: string; server: Server }> {
  const bundled = await build({ stdin: { contents: HOST_SOURCE, resolveDir: repoRoot, loader: 'js' }, bundle: true, format: 'iife', platform: 'browser', write: false, logLevel: 'silent' });
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body><script>${bundled.outputFiles[0]!.text.replace(/<\/script/g, '<\\/script')}</script></body></html>`;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/`, server };
}

/** Shows the view in the host page's iframe, `width` CSS pixels wide, with a tool's input and result. */
export async function showApp(page: Page, view: { html: string; input: unknown; result: unknown; width: number }): Promise<void> {
  await page.evaluate(
    ({ html, input, result, width }) => (window as unknown as { showApp(...args: unknown[]): Promise<void> }).showApp(html, input, result, width),
    view,
  );
}

export interface AppsHost {
  browser: Browser;
  /** The host page: open it, then `showApp`. */
  url: string;
  close(): Promise<void>;
}

/** Chromium and the host page served beside it. */
export async function startAppsHost(): Promise<AppsHost> {
  const browser = await launchChromium();
  const { url, server } = await serveHostPage();
  return {
    browser,
    url,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
