import * as z from 'zod';

/** One way to pay, as x402 v2 states it (`accepts[]` entries). */
export const X402PaymentRequirements = z
  .object({
    scheme: z.literal('exact').describe('`exact`: an EIP-3009 `transferWithAuthorization` of exactly `amount`.'),
    network: z.string().describe('CAIP-2 chain id, e.g. `eip155:8453` (Base).'),
    amount: z.string().describe('The amount still due, in the token\'s base units (6 decimals for USDC).'),
    asset: z.string().describe('The token contract.'),
    payTo: z.string().describe("The invoice's receive address."),
    maxTimeoutSeconds: z
      .number()
      .int()
      .describe("How long the signed authorization may stay valid: `validBefore` at most this many seconds (plus 30 s of clock skew) from now, and never past the invoice's expiry; longer is refused."),
    extra: z
      .object({
        name: z.string(),
        version: z.string(),
        assetTransferMethod: z
          .literal('eip3009')
          .optional()
          .describe('The one authorization kind accepted: an EIP-3009 `authorization` with its `signature`; a payload carrying any other (`permit2Authorization`) is refused (`unsupported_asset_transfer_method`). Absent from listeners before it was stated: the same.'),
      })
      .describe("The token's EIP-712 domain (USDC: `USD Coin`, `2`) and the authorization kind accepted."),
  })
  .meta({ id: 'PaymentRequirements' });

/** The body of a 402 answer, the same object as its `PAYMENT-REQUIRED` header (base64 JSON). */
export const X402PaymentRequired = z
  .object({
    x402Version: z.literal(2),
    error: z.string().optional().describe('Why the last payment was refused (x402 reason).'),
    resource: z.object({ url: z.string(), description: z.string().optional(), mimeType: z.string().optional() }),
    accepts: z.array(X402PaymentRequirements).describe('One entry: the EIP-3009 `exact` offer.'),
  })
  .meta({ id: 'PaymentRequired', description: 'x402 v2 payment requirements: the JSON body of a 402 answer and, base64-encoded, its PAYMENT-REQUIRED header.' });
export type X402PaymentRequired = z.infer<typeof X402PaymentRequired>;

/** How one EVM chain's x402 payments are settled, and whether that can go on. */
export const X402ChainHealth = z
  .object({
    settlement: z.enum(['settler', 'facilitator']).describe('`settler`: the service submits with X402_SETTLER_KEY; `facilitator`: an x402 facilitator (X402_FACILITATOR_URL) does.'),
    settler_address: z.string().nullable().describe("The settler key's address (it pays gas only); null with a facilitator."),
    settler_balance_wei: z.string().nullable().describe("The settler's native balance, in wei; null with a facilitator or when the node does not answer."),
    settler_gas_last_hour: z
      .string()
      .nullable()
      .optional()
      .describe('Gas units the settler spent on the chain in the last hour (reverted transactions too), against X402_SETTLER_GAS_BUDGET; null with a facilitator. Absent from older services.'),
    warning: z.string().nullable().describe('Why x402 payments on this chain may fail: settling is paused (the gas budget of the hour is spent), the settler runs low on gas, or its node does not answer.'),
  })
  .meta({ id: 'PaymentSettlementChainHealth' });

export const X402Health = z
  .object({
    chains: z.record(z.string(), X402ChainHealth).describe('Per EVM chain taking x402 payments.'),
    unseen_settlements: z
      .number()
      .int()
      .describe('x402 settlements a settler or facilitator reported that the chain never showed (their invoices stay pending): check the facilitator.'),
  })
  .meta({ id: 'PaymentSettlementHealth', description: 'x402 payments: settlement per chain and settlements reported but never seen.' });
export type X402Health = z.infer<typeof X402Health>;
