import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/log.ts';
import type { OAuthStore } from '../../core/oauth/oauth-store.ts';
import type { SignInThrottle } from '../http/sign-in-throttle.ts';
import type { RateLimiter } from '../http/sliding-window.ts';
import type { Stylesheet } from './consent-page.ts';
import type { GuardedFetchPolicy } from './guarded-fetch.ts';

/** The account an API key signs in as, and the key's non-reversible id (which its grants record). */
export interface KeyAccount {
  accountId: string;
  keyId: string;
}

export interface AuthorizationServerOptions {
  /** The public base URL (PUBLIC_URL, or the loopback URL served): the issuer. */
  issuer: string;
  /** The canonical URL of the MCP endpoint: the only `resource` tokens are issued for. */
  resource: string;
  store: OAuthStore;
  /** The account an API key signs in as (Cloud: its merchant; listener: `listener`) and the key's id, or null. */
  accountOfKey(key: string): Promise<KeyAccount | null>;
  /** Whether the key with this id still signs in (not revoked, not replaced): a grant lives only as long as its key. */
  keyIsLive(keyId: string): Promise<boolean>;
  /** What the consent page's key field asks for. */
  keyLabel: string;
  /** Client ID Metadata Documents are fetched under this guard (the webhook URL guard). */
  cimdPolicy: GuardedFetchPolicy;
  /** Consent sign-ins, client registrations, authorization and token requests per client IP; null: not throttled. */
  limiters: OAuthLimiters;
  /** Serve a Connected apps page at /oauth/apps (the listener; Cloud has its dashboard's). */
  appsPage: boolean;
  trustProxy: boolean;
  /**
   * What this server decides by time (the Connected apps page's passes). oidc-provider itself reads
   * the system clock (its epochTime helper calls Date.now(), with no setting for another source).
   */
  clock: Clock;
  logger: Logger;
}

/** The throttles of the authorization server's endpoints, each per client address (null: not throttled). */
export interface OAuthLimiters {
  /** Sign-ins on the consent and Connected apps pages. */
  consent: SignInThrottle | null;
  registration: RateLimiter | null;
  authorization: RateLimiter | null;
  token: RateLimiter | null;
}

/** oidc-provider's module, loaded on first use (its types are read here without loading it). */
export type OidcModule = typeof import('oidc-provider');
export type OidcProvider = InstanceType<OidcModule['default']>;
export type OidcErrors = OidcModule['errors'];
/** An authorization request waiting on the consent page. */
export type Interaction = Awaited<ReturnType<OidcProvider['interactionDetails']>>;

/** What the consent and Connected apps pages work with: the provider, the server's options and secrets, the page's stylesheet. */
export interface ServerParts {
  provider: OidcProvider;
  errors: OidcErrors;
  options: AuthorizationServerOptions;
  /** Keys the consent form's CSRF tokens and the Connected apps page's passes. */
  csrfKey: string;
  css: Stylesheet;
  log: Logger;
}
