/**
 * Public entry for merchants' own servers: verify a delivery from the listener.
 * `import { verifyWebhook } from '<this repo>/core/webhooks/index.ts'`.
 */
export { signStandardWebhook, signWebhook, standardWebhookKey, verifyWebhook, webhookDeliveryHeaders } from './signature.ts';
export type { RawBody, VerifyWebhookOptions, WebhookHeaderSource, WebhookVerification } from './signature.ts';
