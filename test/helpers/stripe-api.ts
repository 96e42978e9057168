import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedStripeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

/**
 * A local stand-in for api.stripe.com that the official SDK talks to (its host/port/protocol
 * options): records each request and answers POST /v1/checkout/sessions with a Checkout Session and
 * POST /v1/billing_portal/sessions with a billing portal session, shaped like Stripe's documented
 * objects, or with Stripe's error envelope when `fail` is set.
 */
export async function startStripeApi() {
  const requests: RecordedStripeRequest[] = [];
  const state = { fail: null as null | { status: number; message: string } };
  let sessions = 0;
  let portalSessions = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    requests.push({ method: req.method!, path: req.url!, headers: req.headers, form });
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Request-Id', `req_${requests.length}`);
    if (state.fail) {
      res.statusCode = state.fail.status;
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'resource_missing', message: state.fail.message } }));
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/billing_portal/sessions') {
      const id = `bps_1Portal${String(++portalSessions).padStart(4, '0')}`;
      res.end(
        JSON.stringify({
          id,
          object: 'billing_portal.session',
          configuration: 'bpc_1Default',
          created: Math.floor(Date.now() / 1000),
          customer: form.get('customer'),
          flow: null,
          livemode: false,
          locale: null,
          on_behalf_of: null,
          return_url: form.get('return_url'),
          url: `https://billing.stripe.com/p/session/test_${id}`,
        }),
      );
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url}).` } }));
      return;
    }
    const id = `cs_test_a1${String(++sessions).padStart(4, '0')}`;
    const metadata: Record<string, string> = {};
    for (const [key, value] of form) {
      const field = /^metadata\[(.+)\]$/.exec(key);
      if (field) metadata[field[1]] = value;
    }
    res.end(
      JSON.stringify({
        id,
        object: 'checkout.session',
        mode: form.get('mode'),
        status: 'open',
        payment_status: 'unpaid',
        client_reference_id: form.get('client_reference_id'),
        metadata,
        success_url: form.get('success_url'),
        cancel_url: form.get('cancel_url'),
        currency: 'usd',
        amount_total: Number(form.get('line_items[0][price_data][unit_amount]') ?? 0),
        customer: null,
        subscription: null,
        livemode: false,
        created: Math.floor(Date.now() / 1000),
        expires_at: Math.floor(Date.now() / 1000) + 86_400,
        url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    api: { host: '127.0.0.1', port, protocol: 'http' as const },
    requests,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
