import type { Icon } from '@modelcontextprotocol/sdk/types.js';

/**
 * Icons agent hosts show beside the server and each tool, as data: URIs so they travel with the
 * listing on stdio and HTTP alike and load nothing from anywhere. Plain shapes, no script, no text,
 * no outside reference; one mid-tone colour that reads on light and dark backgrounds.
 */
const svg = (body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2e8b57" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;

const icon = (body: string): Icon[] => [
  { src: `data:image/svg+xml;base64,${Buffer.from(svg(body)).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] },
];

/** The server: a coin. */
export const serverIcons = icon('<circle cx="12" cy="12" r="9"/><path d="M9 8h4.5a2 2 0 0 1 0 4H9h5a2 2 0 0 1 0 4H9zM11 6v2M11 16v2"/>');

/** Each tool's icon, by tool name. */
export const toolIcons = {
  /** An invoice with a plus. */
  create_invoice: icon('<path d="M6 3h9l3 3v15H6z"/><path d="M12 10v6M9 13h6"/>'),
  /** An invoice with a tick. */
  get_invoice_status: icon('<path d="M6 3h9l3 3v15H6z"/><path d="M9 13l2 2 4-4"/>'),
  /** Lines of a list. */
  list_invoices: icon('<path d="M8 6h12M8 12h12M8 18h12"/><circle cx="4" cy="6" r="1"/><circle cx="4" cy="12" r="1"/><circle cx="4" cy="18" r="1"/>'),
  /** Stacked coins. */
  list_supported_assets: icon('<ellipse cx="12" cy="6" rx="7" ry="3"/><path d="M5 6v6c0 1.7 3.1 3 7 3s7-1.3 7-3V6M5 12v6c0 1.7 3.1 3 7 3s7-1.3 7-3v-6"/>'),
  /** A clock. */
  wait_for_payment: icon('<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>'),
} satisfies Record<string, Icon[]>;
