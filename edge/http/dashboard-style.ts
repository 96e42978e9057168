import { loadHashedAsset, type CheckoutAsset } from '../checkout/assets.ts';
import { escapeHtml as e } from '../checkout/page.ts';

/** The stylesheet of the server-rendered account pages (Cloud's dashboard, the OAuth consent page). */
export function loadDashboardStylesheet(): CheckoutAsset {
  return loadHashedAsset(new URL('./public/', import.meta.url), 'dashboard.css', 'text/css; charset=utf-8');
}

/** A hashed asset of this origin, linked with Subresource Integrity. */
export interface LinkedAsset {
  url: string;
  integrity: string;
}

/**
 * The HTML document around an account page (the dashboard's, the OAuth consent page): the
 * stylesheet above and, when given, one script of this origin; nothing from elsewhere.
 */
export function accountPage(page: { title: string; css: LinkedAsset; body: string; script?: LinkedAsset; head?: string }): string {
  const script = page.script ? `<script src="${e(page.script.url)}" integrity="${page.script.integrity}" defer></script>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(page.title)}</title>
<link rel="stylesheet" href="${e(page.css.url)}" integrity="${page.css.integrity}">
${script}${page.head ?? ''}</head>
<body>
${page.body}
</body>
</html>
`;
}
