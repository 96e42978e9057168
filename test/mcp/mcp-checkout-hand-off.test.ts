import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as z from 'zod';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { RunningListener } from '../../listener/app.ts';
import { silentLogger } from '../../core/log.ts';
import { createListenerClient, type ListenerClient } from '../../mcp/listener-client.ts';
import { createServer } from '../../mcp/server.ts';
import { paymentStateFor, paymentStateSettings } from '../../mcp/payment-state.ts';
import { startTestListener } from '../helpers/listener.ts';
import { inProcessEndpoint, sdk2Client, type WireExchange } from '../helpers/sdk2-mcp.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';

const SECRET = 'a test secret of at least thirty-two bytes';
const checkoutUrl = (invoiceId: string) => `https://pay.example/pay/${invoiceId}`;
const URL_ELICITATION = { elicitation: { url: {} } };

type Created = { invoice: { invoice_id: string } };
type Text = { type: string; text?: string };

describe('create_invoice with open_checkout: the hosted checkout page handed to the payer (URL-mode input, 2026-07-28)', () => {
  let listener: RunningListener;
  let creates = 0;
  let client: ListenerClient;

  /** The server, create_invoice counting the invoices it creates. */
  const serverOf = (owner: string, era: 'modern' | 'legacy') => {
    const counted: ListenerClient = { ...client, createInvoice: (body) => (creates++, client.createInvoice(body)) };
    const paymentState = paymentStateFor(paymentStateSettings(SECRET, checkoutUrl), owner);
    return createServer({ listener: counted, updates: { watch: () => () => undefined }, chains: defaultChains, renderQr: () => Buffer.from('png'), logger: silentLogger, paymentState }, era);
  };
  const endpointOf = (owner: string) => inProcessEndpoint(() => serverOf(owner, 'modern'));
  const merchantA = endpointOf('merchant-a');

  before(async () => {
    listener = await startTestListener();
    client = createListenerClient({ baseUrl: listener.url, apiKey: undefined, fetch, timeoutMs: 5_000, logger: silentLogger });
  });
  after(async () => {
    await listener?.stop();
  });

  /** A 2026-07-28 client that opens every URL it is asked to (recorded) by accepting. */
  async function payerClient(capabilities: Record<string, unknown>) {
    const opened: { url: string; message: string }[] = [];
    const session = await sdk2Client(merchantA, { capabilities });
    session.client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url: string; message: string };
      assert.equal(params.mode, 'url');
      opened.push({ url: params.url, message: params.message });
      return { action: 'accept' };
    });
    return { ...session, opened };
  }
  const roundOne = (exchanges: WireExchange[]) => exchanges.filter((sent) => sent.method === 'tools/call').at(-2)!.body.result!;

  test('a client taking URL-mode elicitation is asked to open the checkout page, and the retry answers the one invoice created', async () => {
    const { client: payer, exchanges, opened } = await payerClient(URL_ELICITATION);
    const before = creates;
    const result = await payer.callTool({ name: 'create_invoice', arguments: { amount_sats: 12_345, open_checkout: true } });
    assert.equal(creates - before, 1, 'one invoice for both rounds');
    const { invoice } = result.structuredContent as Created;
    assert.deepEqual(opened, [{ url: checkoutUrl(invoice.invoice_id), message: `Open the checkout page to pay invoice ${invoice.invoice_id}.` }]);
    // The first round on the wire: the URL request and the sealed state, no result yet.
    const first = roundOne(exchanges);
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests as object), ['checkout']);
    assert.equal(typeof first.requestState, 'string');
    assert.ok(!('structuredContent' in first));
    // The stored invoice is the one the payer was sent to.
    assert.equal((await client.getInvoice(invoice.invoice_id)).ok, true);
    await payer.close();
  });

  test('a retry with altered, made-up or another merchant\'s requestState is refused (-32602) and creates nothing', async () => {
    const { client: payer, exchanges } = await payerClient(URL_ELICITATION);
    await payer.callTool({ name: 'create_invoice', arguments: { amount_sats: 2_000, open_checkout: true } });
    const state = roundOne(exchanges).requestState as string;
    const merchantB = await sdk2Client(endpointOf('merchant-b'), { capabilities: URL_ELICITATION });
    const before = creates;
    const retry = (to: Client, requestState: string) =>
      to.request({ method: 'tools/call', params: { name: 'create_invoice', arguments: { amount_sats: 2_000, open_checkout: true }, requestState, inputResponses: { checkout: { action: 'accept' } } } } as never, z.looseObject({})).then(
        (value) => assert.fail('expected the state to be refused ' + JSON.stringify(value)),
        (error: { code: number }) => error.code,
      );
    const flipped = `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`;
    assert.equal(await retry(payer, flipped), -32602);
    assert.equal(await retry(payer, 'made-up'), -32602);
    assert.equal(await retry(merchantB.client, state), -32602);
    assert.equal(creates, before);
    await merchantB.client.close();
    await payer.close();
  });

  test('a client without URL-mode elicitation gets the invoice at once with the page in the text; without open_checkout nothing changes', async () => {
    const { client: payer, opened } = await payerClient({ elicitation: { form: {} } });
    const before = creates;
    const handed = await payer.callTool({ name: 'create_invoice', arguments: { amount_sats: 3_000, open_checkout: true } });
    const { invoice } = handed.structuredContent as Created;
    assert.ok((handed.content as Text[]).some((block) => block.text === `Hosted checkout page for the payer: ${checkoutUrl(invoice.invoice_id)}`));
    const plain = await payer.callTool({ name: 'create_invoice', arguments: { amount_sats: 3_000 } });
    assert.ok(!(plain.content as Text[]).some((block) => block.text?.includes('pay.example')));
    assert.equal(creates - before, 2);
    assert.deepEqual(opened, []);
    await payer.close();
  });

  test('2025 era: the SDK\'s legacy shim sends the URL request as elicitation/create on the session, and the one invoice comes back', async () => {
    const server = serverOf('merchant-a', 'legacy');
    const session = new Client({ name: 'service-test', version: '1.0.0' }, { capabilities: URL_ELICITATION });
    const opened: string[] = [];
    session.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url: string };
      assert.equal(params.mode, 'url');
      opened.push(params.url);
      return { action: 'accept' };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), session.connect(clientSide)]);
    const before = creates;
    const result = await session.callTool({ name: 'create_invoice', arguments: { amount_sats: 4_000, open_checkout: true } });
    const { invoice } = result.structuredContent as Created;
    assert.equal(creates - before, 1);
    assert.deepEqual(opened, [checkoutUrl(invoice.invoice_id)]);
    await session.close();
  });
});
