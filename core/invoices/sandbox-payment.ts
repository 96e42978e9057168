import type { CheckoutView } from '../../shared/index.ts';

/** What the sandbox chain server is asked to send for `service pay`, and what to say once it has. */
export interface SandboxPaymentRequest {
  /** The control action, under the chain server's /control/. */
  action: string;
  body: Record<string, unknown>;
  /** The lines printed from the server's answer. */
  paid(answer: Record<string, unknown>): string;
}

/** What `service pay` was asked: an amount in the chain's own unit (the amount still due when absent), and whether over Lightning. */
export interface SandboxPaymentChoice {
  amount: string | undefined;
  /** `--lightning`: pay the invoice's BOLT11 from the sandbox's simulated Lightning wallet. */
  lightning: boolean;
}

/** How `service pay` pays an invoice of a chain from the sandbox: the request to the sandbox's chain server, or why it cannot. */
export type SandboxPayment = (view: CheckoutView, choice: SandboxPaymentChoice) => SandboxPaymentRequest | { refused: string };
