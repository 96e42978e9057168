/**
 * An agent paying an invoice's x402_url with the official x402 client (@x402/fetch), as in
 * docs/agents.md. AGENT_KEY is the agent's EVM private key (it needs the token, no gas).
 *
 *   AGENT_KEY=0x… npx tsx examples/x402-agent.ts --address     prints the agent's address
 *   AGENT_KEY=0x… npx tsx examples/x402-agent.ts <x402_url>     pays it, prints the payment response
 *
 * ALLOWED_TOKEN (the sandbox's test USDC, which `npx service fund` prints) is the token the agent
 * may pay beside the client's default ones (USDC on Base and the other main chains); MAX_UNITS caps
 * one payment, in the token's base units (default 20 USDC).
 */
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

const key = process.env.AGENT_KEY;
if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error('set AGENT_KEY to the agent wallet\'s private key (0x and 64 hex digits)');
const account = privateKeyToAccount(key as `0x${string}`);
const [target] = process.argv.slice(2);
if (target === '--address') {
  console.log(account.address);
  process.exit(0);
}
if (!target) throw new Error('usage: npx tsx examples/x402-agent.ts <x402_url> | --address');

const client = new x402Client();
registerExactEvmScheme(client, { signer: account });
// Spend controls: by default the client pays only the tokens it knows, at most $1 a payment.
const maxUnits = process.env.MAX_UNITS ?? '20000000';
const allowed = process.env.ALLOWED_TOKEN?.split(',').map((entry) => {
  const [network, asset] = entry.split('/');
  return { network: network as `${string}:${string}`, asset: asset!, maxAmountPerPayment: maxUnits };
});
client.setSpendControls({ maxAmountPerPayment: '$20', ...(allowed && { allowedAssets: allowed }) });

const pay = wrapFetchWithPayment(fetch, client);
const answer = await pay(target);
const header = answer.headers.get('PAYMENT-RESPONSE');
const body = (await answer.json()) as { status?: string; error?: { code: string; message: string } };
if (!header) {
  console.error(`not paid: HTTP ${answer.status} ${JSON.stringify(body)}`);
  process.exit(1);
}
const receipt = decodePaymentResponseHeader(header);
console.log(JSON.stringify({ paid: receipt.success, transaction: receipt.transaction, network: receipt.network, payer: receipt.payer, invoice_status: body.status }));
