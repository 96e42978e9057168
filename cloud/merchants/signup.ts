import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import { SHOP_NAME_MAX, SHOP_NAME_MIN } from '../../shared/index.ts';
import type { ChainWithMerchants } from '../../core/merchant-chain.ts';
import { legacyColumnsOf, signupReceiveMethods } from './receive-methods.ts';
import type { Clock } from '../../core/clock.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import { newApiKey } from '../keys/api-keys.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import { insertMerchant } from './merchant.repository.ts';
import { checkWebhookUrl, type WebhookTargetPolicy } from '../../core/net/webhook-target.ts';
import type { LightningPlatform } from '../../core/merchant-chain.ts';

/** A Lightning connection checked by the platform (receive-only, answering); refused where the platform takes no Lightning. */
export async function checkedLightning(lightning: LightningPlatform | null, text: string, field: string) {
  if (!lightning) throw new ServiceError('invalid_lightning_connection', `${field}: this service takes no Lightning.`);
  return lightning.check(text, field);
}

const Email = z.email();
const CONTROL = /[\u0000-\u001f\u007f]/;

const optionalText = (body: Record<string, unknown>, field: string): string | null => {
  const value = body[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new ServiceError('bad_body', `${field} must be a string.`);
  return value.trim();
};

/** Every string in a request body, however deep: a private key inside a `receive_methods` entry counts too. */
const textsOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value).flatMap(textsOf) : [];

export interface SignupResult {
  merchant_id: string;
  plan: 'free';
  api_key: string;
  key_prefix: string;
  webhook_secret?: string;
}

/**
 * Validates a signup in the order of the spec's codes and stores the account. A private key in
 * any field stops everything before anything else is judged, and is never echoed or stored.
 */
export async function signup(
  deps: { db: Kysely<CloudTables>; clock: Clock; webhookPolicy: WebhookTargetPolicy; chains: readonly ChainWithMerchants[]; lightning: LightningPlatform | null },
  body: unknown,
): Promise<SignupResult> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ServiceError('bad_body', 'The body must be a JSON object.');
  const fields = body as Record<string, unknown>;
  if (textsOf(fields).some((text) => deps.chains.some((chain) => chain.merchant.containsPrivateKey(text)))) {
    throw new ServiceError('private_key_rejected', 'An extended PRIVATE key was sent; it was not stored. Send only the account public key (xpub).');
  }
  const email = typeof fields.email === 'string' ? fields.email.trim().toLowerCase() : '';
  if (!Email.safeParse(email).success || email.length > 254) throw new ServiceError('invalid_email', 'email must be an email address.');
  const shopName = typeof fields.shop_name === 'string' ? fields.shop_name.trim() : '';
  if ([...shopName].length < SHOP_NAME_MIN || [...shopName].length > SHOP_NAME_MAX || CONTROL.test(shopName)) {
    throw new ServiceError('invalid_shop_name', `shop_name must be ${SHOP_NAME_MIN}-${SHOP_NAME_MAX} characters.`);
  }
  const lightningText = optionalText(fields, 'lightning_nwc_url');
  const methods = signupReceiveMethods(fields, deps.chains, { lightning: lightningText !== null });
  const webhookUrlText = optionalText(fields, 'webhook_url');
  const webhook = webhookUrlText ? await checkWebhookUrl(webhookUrlText, deps.webhookPolicy) : null;
  const lightning = lightningText ? await checkedLightning(deps.lightning, lightningText, 'lightning_nwc_url') : null;

  const now = deps.clock.now();
  const merchantId = `m_${randomBytes(9).toString('base64url')}`;
  const key = newApiKey();
  const webhookSecret = webhook ? newWebhookSecret() : null;
  const stored = await insertMerchant(
    deps.db,
    deps.chains,
    {
      merchant_id: merchantId,
      email,
      shop_name: shopName,
      ...legacyColumnsOf(methods),
      receive_methods: JSON.stringify(methods),
      webhook_url: webhook ? webhook.url.href : null,
      webhook_secret: webhookSecret,
      lightning_nwc_url: lightning ? lightningText : null,
      lightning_network: lightning?.network ?? null,
      plan: 'free',
      plan_expires_at: null,
      created_at: now,
    },
    { key_hash: key.hash, merchant_id: merchantId, prefix: key.prefix, label: 'default', revoked: 0, created_at: now, scopes: null },
  );
  if (stored === 'email_taken') throw new ServiceError('email_taken', 'An account with this email exists.');
  if (stored === 'address_derived') throw new ServiceError('invalid_address', 'The fixed address is already the receive address of a derived-address invoice; register another address.');
  return {
    merchant_id: merchantId,
    plan: 'free',
    api_key: key.key,
    key_prefix: key.prefix,
    ...(webhookSecret ? { webhook_secret: webhookSecret } : {}),
  };
}
