import { readFileSync } from 'node:fs';
import type { Icon } from '@modelcontextprotocol/server';

/** Where the pictures are: an SVG each, and the same drawn as a PNG (test/mcp/mcp-host-listing.test.ts keeps the two alike). */
const ICON_IMAGES = new URL('icon-images/', import.meta.url);
/** The PNGs' side in pixels. */
const ICON_PNG_SIZE = 48;

const dataUri = (mimeType: string, bytes: Buffer) => `data:${mimeType};base64,${bytes.toString('base64')}`;

/**
 * The icons agent hosts show beside the server or a tool, as data: URIs so they travel with the
 * listing on stdio and HTTP alike and load nothing from anywhere: the SVG (plain shapes, no script,
 * no text, no outside reference; one mid-tone colour that reads on light and dark backgrounds), and
 * a PNG for hosts that draw only the image types every client must support.
 */
function icon(picture: string): Icon[] {
  const svg = readFileSync(new URL(`${picture}.svg`, ICON_IMAGES), 'utf8').trim();
  const png = readFileSync(new URL(`${picture}.png`, ICON_IMAGES));
  return [
    { src: dataUri('image/svg+xml', Buffer.from(svg)), mimeType: 'image/svg+xml', sizes: ['any'] },
    { src: dataUri('image/png', png), mimeType: 'image/png', sizes: [`${ICON_PNG_SIZE}x${ICON_PNG_SIZE}`] },
  ];
}

/** The server's: a coin. */
export const serverIcons = icon('service');

/** Each tool's icon, by tool name. */
export const toolIcons = {
  /** An invoice with a plus. */
  create_invoice: icon('create_invoice'),
  /** An invoice with a tick. */
  get_invoice_status: icon('get_invoice_status'),
  /** Lines of a list. */
  list_invoices: icon('list_invoices'),
  /** Stacked coins. */
  list_supported_assets: icon('list_supported_assets'),
  /** A clock. */
  wait_for_payment: icon('wait_for_payment'),
} satisfies Record<string, Icon[]>;
