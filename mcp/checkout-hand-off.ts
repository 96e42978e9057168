import * as z from 'zod';
import {
  createRequestStateCodec,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { requestCapabilities } from './tasks/extension.ts';

/** create_invoice's extra argument: hand the invoice to a person, who pays on its hosted page. */
export const openCheckoutShape = {
  open_checkout: z
    .boolean()
    .optional()
    .describe('true: a person pays this invoice; the client is asked to open its hosted checkout page for them (when the client can open URLs and the page exists). The invoice is returned either way.'),
};

export interface CheckoutHandOffOptions {
  /** Seals the created invoice's result between the rounds: the same on every instance. */
  key: Uint8Array;
  /** Whose invoice it is (the merchant, or the credential on the listener): another owner's retry is refused. */
  owner: string;
  /** The invoice's hosted checkout page, or null where it has none (no public URL, hosted checkout off). */
  checkoutUrl(invoiceId: string): string | null;
  /** How long the client has to open the page and retry; then the state is refused (default 15 min). */
  ttlSeconds?: number;
}

type CreateCallback<A> = (args: A, ctx: ServerContext) => Promise<CallToolResult>;
const HandOffState = z.object({ result: z.looseObject({ content: z.array(z.unknown()) }) });
type HandOffState = { result: CallToolResult };

/** Whether the client takes URL-mode elicitation: on this request (2026-07-28), or on its session (2025 era). */
function opensUrls(ctx: ServerContext, server: Server): boolean {
  const declared: ClientCapabilities | undefined = requestCapabilities(ctx) ?? server.getClientCapabilities();
  return declared?.elicitation?.url !== undefined;
}

const invoiceIdOf = (result: CallToolResult) => (result.structuredContent as { invoice?: { invoice_id?: string } } | undefined)?.invoice?.invoice_id;

/**
 * create_invoice with `open_checkout`: the first round creates the invoice and asks the client to
 * open its hosted checkout page (a URL-mode input request, nothing asked of the person); the retry
 * answers the invoice created then, carried in the sealed requestState, so one call creates one
 * invoice however many rounds it takes. Without the argument, the page or the client's URL-mode
 * elicitation, it is create_invoice as always (the page's URL then in the text when there is one).
 * On a 2025-era session the SDK's legacy shim sends the request as elicitation/create and re-enters.
 *
 * `verify` goes in the server's options (`requestState: { verify }`): the SDK then refuses an
 * altered, expired or other owner's state with -32602 before the tool runs (a refusal from inside
 * the tool would reach the client as a tool error).
 */
export function checkoutHandOff(options: CheckoutHandOffOptions) {
  const codec = createRequestStateCodec<HandOffState>({ key: options.key, ttlSeconds: options.ttlSeconds ?? 900, bind: () => `create_invoice\0${options.owner}` });
  return {
    verify: codec.verify,
    /** `create` (create_invoice's callback) with the hand-off around it, for the arguments extended by openCheckoutShape. */
    wrap<A extends { open_checkout?: boolean }>(server: Server, create: CreateCallback<Omit<A, 'open_checkout'>>) {
      return async (args: A, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
        const echoed = ctx.mcpReq.requestState<unknown>();
        if (echoed !== undefined) {
          // A string here means the server was built without `verify`: check it anyway.
          const state = HandOffState.safeParse(typeof echoed === 'string' ? await codec.verify(echoed, ctx).catch(() => undefined) : echoed);
          if (!state.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState');
          return state.data.result as CallToolResult;
        }
        const { open_checkout, ...createArgs } = args;
        const result = await create(createArgs, ctx);
        const invoiceId = invoiceIdOf(result);
        const url = open_checkout && !result.isError && invoiceId ? options.checkoutUrl(invoiceId) : null;
        if (!url) return result;
        if (!opensUrls(ctx, server)) return { ...result, content: [...result.content, { type: 'text', text: `Hosted checkout page for the payer: ${url}` }] };
        return inputRequired({
          inputRequests: { checkout: inputRequired.elicitUrl({ url, message: `Open the checkout page to pay invoice ${invoiceId}.` }) },
          requestState: await codec.mint({ result }, ctx),
        });
      };
    },
  };
}
export type CheckoutHandOff = ReturnType<typeof checkoutHandOff>;
