import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** A skip message when Debian's chromium is absent (`.ci/run` installs it), else false. */
export const chromiumMissing: string | false = existsSync(CHROMIUM_PATH)
  ? false
  : `${CHROMIUM_PATH} not found: browser tests skipped (apt-get install -y chromium; .ci/run installs it)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

const root = new URL('../../', import.meta.url);
export const artifactsDir = fileURLToPath(new URL('test-artifacts/', root));
/** Committed screenshots for the docs (docs/screenshots), rewritten only when UPDATE_SCREENSHOTS=1. */
export const docsScreenshotsDir = fileURLToPath(new URL('docs/screenshots/', root));

/** Saves a full-page screenshot as a test artifact (and into docs/ when asked). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  const png = await page.screenshot({ fullPage: true, path: `${artifactsDir}${name}.png` });
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(docsScreenshotsDir, { recursive: true });
    writeFileSync(`${docsScreenshotsDir}${name}.png`, png);
  }
}

/** Every console error or warning (CSP violations among them), uncaught exception and failed request of a page. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') errors.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    // An event stream is always in flight: a navigation of the page's own (a reload) cuts it short.
    if (request.resourceType() === 'eventsource' && request.failure()?.errorText === 'net::ERR_ABORTED') return;
    errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  return errors;
}

/** What a QR code drawn on the page says, read from a screenshot of it as a phone camera would. */
export async function decodeQr(drawn: Locator): Promise<string | undefined> {
  const png = PNG.sync.read(await drawn.screenshot());
  return jsQRModule.default(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/** Whether the page scrolls sideways: wider content than its viewport. */
export async function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; clientWidth: number } | null> {
  const size = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
  return size.scrollWidth > size.clientWidth ? size : null;
}
