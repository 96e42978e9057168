import { randomBytes } from 'node:crypto';
import type { CheckoutHandOff } from './checkout-hand-off.ts';
import { checkoutHandOff } from './checkout-hand-off.ts';
import { memoryCancellations, type TaskCancellations } from './tasks/cancellations.ts';
import type { PaymentTaskOptions } from './tasks/payment-tasks.ts';
import { stateKey } from './state-keys.ts';

/** What the sealed MCP state needs of a deployment: set up once per process. */
export interface PaymentStateSettings {
  /** Shared by every instance (MCP_STATE_SECRET), at least 32 bytes. */
  secret: Uint8Array | string;
  /** The process's cancelled tasks. */
  cancellations: TaskCancellations;
  /** An invoice's hosted checkout page (Cloud: its checkout_url; the listener: PUBLIC_URL/pay/{id}), or null. */
  checkoutUrl(invoiceId: string): string | null;
}

/**
 * The settings of a process: the configured secret, or without one a random secret of this process
 * (enough for one listener: its tasks and input rounds then end with the process; several Cloud
 * instances need the setting, or a poll reaching another instance finds an unknown task).
 */
export function paymentStateSettings(configuredSecret: string | undefined, checkoutUrl: PaymentStateSettings['checkoutUrl'], now: () => number = Date.now): PaymentStateSettings {
  return { secret: configuredSecret ?? randomBytes(32), cancellations: memoryCancellations(now), checkoutUrl };
}

/** What one server, answering for `owner`, seals and opens: the checkout hand-off and the payment tasks. */
export interface PaymentState {
  handOff: CheckoutHandOff;
  tasks: PaymentTaskOptions;
}

export function paymentStateFor(settings: PaymentStateSettings, owner: string): PaymentState {
  return {
    handOff: checkoutHandOff({ key: stateKey(settings.secret, 'checkout-hand-off'), owner, checkoutUrl: settings.checkoutUrl }),
    tasks: { key: stateKey(settings.secret, 'tasks'), owner, cancellations: settings.cancellations },
  };
}
