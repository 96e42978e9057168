export * from './errors.ts';
export * from './invoice.ts';
export * from './health.ts';
export * from './assets.ts';
export * from './webhooks.ts';
export * from './checkout.ts';
export { API_VERSION } from './version.ts';
export * from './cloud.ts';
export * from './network-name.ts';
