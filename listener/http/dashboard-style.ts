import { loadHashedAsset, type CheckoutAsset } from '../checkout/assets.ts';

/** The stylesheet of the server-rendered account pages (Cloud's dashboard, the OAuth consent page). */
export function loadDashboardStylesheet(): CheckoutAsset {
  return loadHashedAsset(new URL('./public/', import.meta.url), 'dashboard.css', 'text/css; charset=utf-8');
}
