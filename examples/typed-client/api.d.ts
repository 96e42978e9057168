// Generated from openapi/openapi.json by openapi-typescript (npm run generate). Do not edit.
export interface paths {
    "/invoice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a pending invoice
         * @description Requires `X-Service-Api-Key` when the listener has `SERVICE_API_KEY` set. Rate limited per client IP and overall (default 30/min and 300/min).
         */
        post: operations["createInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoice/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a stored invoice
         * @description No key required. A pending invoice past `expires_at` reads as `expired`. Use it to refresh a checkout page or reconcile after a missed webhook; poll sparingly.
         */
        get: operations["getInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find invoices: filtered, paged, or exported as CSV
         * @description Requires `X-Service-Api-Key` when the listener has `SERVICE_API_KEY` set (without one, like POST /invoice, it is open: development only). The same query and answers as Cloud `GET /api/v1/invoices`. Filters combine (all must hold); pages follow `next_cursor`, which stays valid as new invoices arrive (they come before it). `Accept: text/csv` or `format=csv` answers every matching invoice as CSV instead (RFC 4180, a header line, `Content-Disposition: attachment`), streamed as it is read, whatever their number; a merchant runs two exports at a time at most (then 429 `rate_limited`). A pending invoice past `expires_at` is listed as `expired`, as a read answers it, and stored so (`status` matches the stored status: the expiry sweeper stores `expired` within a minute of `expires_at`, a list as it reads). An unknown or repeated parameter, or a malformed value, answers 400 `bad_query` naming it.
         */
        get: operations["listInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/x402/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pay an invoice with x402 (HTTP 402, EIP-3009 USDC)
         * @description No key: the invoice's `x402_url`, public like its checkout page and rate limited per client IP (`X402_RATE_LIMIT`, default 60/min and 600/min overall). Without `PAYMENT-SIGNATURE`: 402 with `PAYMENT-REQUIRED` (x402 v2, base64 JSON) and the same object as body. With it (an EIP-3009 authorization signed for exactly the requirements): every check runs before anything is sent, one payer at a time, then the settlement (the built-in settler or `X402_FACILITATOR_URL`); 200 with `PAYMENT-RESPONSE` once the transaction is mined, and the invoice. The invoice confirms through the chain watcher like any transfer. The same payload again answers the same 200; nothing is sent twice.
         */
        get: operations["getX402"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkout/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An invoice's checkout view (what its payment page shows)
         * @description No key; public and CORS-open, like Cloud `GET /api/v1/checkout/{id}`. Display-only fields: never an xpub, secret, key or email. A pending invoice past `expires_at` reads as `expired`. The checkout page polls it every 5 s until the status is final.
         */
        get: operations["getCheckoutView"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkout/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An invoice's checkout view, live (Server-Sent Events)
         * @description Server-Sent Events: an event `view` with the checkout view (the JSON of the view route) at once and after each status change of the invoice, until the status is final (then the stream ends). A stream lives `CHECKOUT_STREAM_MAX_S` at most (default 300): it then ends with an event `reconnect`, and the client opens a new one. Each client address may hold `CHECKOUT_STREAMS_PER_CLIENT` streams (default 20; beyond, 429 `too_many_streams`) and the server `CHECKOUT_STREAMS_MAX` in all (default 500; beyond, 503 `capacity`), both with `Retry-After`. Public and CORS-open, like the view. The checkout page listens to it and falls back to polling the view when the stream is refused or cut.
         */
        get: operations["getCheckoutEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pay/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Hosted checkout page of an invoice (HTML, for the payer)
         * @description Shop name, exact amount, address with copy buttons, the QR code of `qr_uri` (SVG made by the service), a countdown to expiry and the live status. Give the payer this link. Served with a strict Content-Security-Policy (only this origin's own script, stylesheet and JSON).
         */
        get: operations["getCheckoutPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and chain-watcher state */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/llms.txt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Plain-text summary of the API for language models (llmstxt.org format) */
        get: operations["getLlmsTxt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description Counters, gauges and histograms of invoices, chain watchers, chain sources, webhook deliveries, MCP and HTTP, plus process metrics. No label carries a merchant id, email, address or key. With `METRICS_TOKEN` set, answered to any caller sending `Authorization: Bearer <METRICS_TOKEN>`. Without it, only to a caller on the same host: the server listens on loopback only with no `PUBLIC_URL` set, the connection comes from loopback and the request carries no forwarding header of any kind (`Forwarded`, `Via`, `X-Forwarded-*`, `X-Real-IP`, …). Anyone else gets 401 `unauthorized`.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * MCP Streamable HTTP endpoint: the session's stream of server messages (resource updates)
         * @description An event stream (`text/event-stream`) carrying `notifications/resources/updated` for subscribed invoices. Requires `Mcp-Session-Id`.
         */
        get: operations["mcpGet"];
        put?: never;
        /**
         * MCP Streamable HTTP endpoint: send a JSON-RPC message (tools, resources, subscriptions) to an agent session
         * @description The Model Context Protocol over Streamable HTTP (the same tools and resources as the stdio server `service-mcp`). The key as for `POST /invoice` (`X-Service-Api-Key`, or `Authorization: Bearer <key>`) when the listener has `SERVICE_API_KEY` set, or an OAuth access token issued for this endpoint (`Authorization: Bearer`; without credentials the 401 carries `WWW-Authenticate: Bearer resource_metadata=…`, and a token lacking the scope of a tool gets 403 `insufficient_scope`); `create_invoice` counts against the same rate limit. Start with `initialize` (no session header); its answer carries `Mcp-Session-Id`, which later requests must send. A 2026-07-28 client sends no `initialize` and no session: each request carries its revision in `params._meta` and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, and is answered statelessly (`server/discover`, `subscriptions/listen` streams bounded by `MCP_MAX_LISTEN_STREAMS`); a missing or disagreeing header answers 400 with JSON-RPC -32020. Sessions are bounded per owner (Cloud: the merchant; listener: the key, or each OAuth grant; `MCP_MAX_SESSIONS_PER_OWNER`, default 100), and their starts per owner and per client address (`MCP_INITIALIZE_RATE_LIMIT`, default 60 and 600 a minute): past either, 429 `too_many_sessions` with `Retry-After`; past the server's `MCP_MAX_SESSIONS`, 503 `capacity`. A browser `Origin` must be listed in `MCP_ALLOWED_ORIGINS`; requests without Origin are not browser requests and pass. Tool failures are tool results whose text starts with the stable error code.
         */
        post: operations["mcpPost"];
        /**
         * MCP Streamable HTTP endpoint: end the session
         * @description Closes the session named by `Mcp-Session-Id` and its subscriptions. Idle sessions also close on their own (after 30 minutes without a request).
         */
        delete: operations["mcpDelete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a Cloud account (Free plan)
         * @description Throttled per client IP. `api_key` and `webhook_secret` are shown once; only a hash of the key is stored.
         */
        post: operations["cloudSignup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account of the API key */
        get: operations["cloudMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue another API key, full-access or scoped
         * @description Needs a full-access key. A scoped key works on `/api/v1` and `/api/v1/mcp` within its scopes: `invoices:read` for GET /invoice/{id}, GET /invoices and the reading MCP tools and resources; `invoices:write` for POST /invoice and create_invoice. Anything else (account, webhook, billing, keys, the dashboard) needs a full-access key; a scoped key gets 403 `insufficient_scope`.
         */
        post: operations["cloudCreateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The merchant's invoices, most recent first: filtered, paged, or exported as CSV
         * @description Only the key's merchant's invoices. Each entry carries `checkout_url` when hosted checkout is enabled; a CSV export adds it as the last column. Filters combine (all must hold); pages follow `next_cursor`, which stays valid as new invoices arrive (they come before it). `Accept: text/csv` or `format=csv` answers every matching invoice as CSV instead (RFC 4180, a header line, `Content-Disposition: attachment`), streamed as it is read, whatever their number; a merchant runs two exports at a time at most (then 429 `rate_limited`). A pending invoice past `expires_at` is listed as `expired`, as a read answers it, and stored so (`status` matches the stored status: the expiry sweeper stores `expired` within a minute of `expires_at`, a list as it reads). An unknown or repeated parameter, or a malformed value, answers 400 `bad_query` naming it.
         */
        get: operations["cloudListInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Save the webhook URL; issues a fresh signing secret
         * @description https, default port, host resolving only to public addresses (checked now and before every delivery). The previous secret stops signing.
         */
        post: operations["cloudSetWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lightning": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Connect (or disconnect) your own Lightning wallet
         * @description A receive-only Nostr Wallet Connect URI from your wallet. The service connects to its relays, asks get_info, and refuses a connection that may spend or cannot make and look up invoices. Bitcoin invoices then carry a BOLT11 invoice from your wallet. `nwc_url: null` disconnects. The URI is a secret: stored, never returned.
         */
        post: operations["cloudSetLightning"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/plans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Plan catalogue */
        get: operations["cloudPlans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Buy or renew a plan
         * @description `crypto`: a Base stablecoin invoice whose hosted page is `checkout_url`; once it confirms the plan runs 30 days (a renewal of the same plan adds to the remaining time). `card`: a card processor page.
         */
        post: operations["cloudBillingCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a pending invoice for the key's merchant
         * @description Same body as the listener POST /invoice. Rate limited per API key (60/min sliding window); 402 at the plan's monthly cap.
         */
        post: operations["cloudCreateInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invoice/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one of the merchant's invoices
         * @description Another merchant's invoice answers 404 `not_found`, exactly like a missing one.
         */
        get: operations["cloudGetInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/x402/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pay an invoice with x402 (HTTP 402, EIP-3009 USDC)
         * @description No key: the invoice's `x402_url`, public like its checkout page and rate limited per client IP (`X402_RATE_LIMIT`, default 60/min and 600/min overall). Without `PAYMENT-SIGNATURE`: 402 with `PAYMENT-REQUIRED` (x402 v2, base64 JSON) and the same object as body. With it (an EIP-3009 authorization signed for exactly the requirements): every check runs before anything is sent, one payer at a time, then the settlement (the built-in settler or `X402_FACILITATOR_URL`); 200 with `PAYMENT-RESPONSE` once the transaction is mined, and the invoice. The invoice confirms through the chain watcher like any transfer. The same payload again answers the same 200; nothing is sent twice. On Cloud the overall budget is shared by the invoices' merchants: each has its plan's requests a minute (`CLOUD_X402_RATE_PER_PLAN`, default Free 60, Starter 300, Pro 600), and Free merchants together the overall budget less `CLOUD_FAIR_SHARE_RESERVE` (default 480 of 600), counted across instances; past any, 429 `rate_limited` naming the limit, with `Retry-After`.
         */
        get: operations["cloudX402"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/checkout/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public display view of an invoice (CORS open) */
        get: operations["cloudCheckoutView"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/checkout/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public display view of an invoice, live (Server-Sent Events)
         * @description Server-Sent Events: an event `view` with the checkout view (the JSON of the view route) at once and after each status change of the invoice, until the status is final (then the stream ends). A stream lives `CHECKOUT_STREAM_MAX_S` at most (default 300): it then ends with an event `reconnect`, and the client opens a new one. Each client address may hold `CHECKOUT_STREAMS_PER_CLIENT` streams (default 20; beyond, 429 `too_many_streams`) and the server `CHECKOUT_STREAMS_MAX` in all (default 500; beyond, 503 `capacity`), both with `Retry-After`. Public and CORS-open, like the view. The checkout page listens to it and falls back to polling the view when the stream is refused or cut. Each stream also counts for the invoice's merchant: at most its plan's `CLOUD_CHECKOUT_STREAMS_PER_PLAN` (default Free 25, Starter 100, Pro 250) on one server, and Free merchants together never take the part of `CHECKOUT_STREAMS_MAX` kept for paid plans (`CLOUD_FAIR_SHARE_RESERVE`); past either, 429 `too_many_streams` naming the cap, with `Retry-After`.
         */
        get: operations["cloudCheckoutEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Cloud liveness */
        get: operations["cloudHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["cloudOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/llms.txt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Plain-text summary of the API for language models (llmstxt.org format) */
        get: operations["cloudLlmsTxt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * MCP Streamable HTTP endpoint: the session's stream of server messages (resource updates)
         * @description An event stream (`text/event-stream`) carrying `notifications/resources/updated` for subscribed invoices. Requires `Mcp-Session-Id`.
         */
        get: operations["cloudMcpGet"];
        put?: never;
        /**
         * MCP Streamable HTTP endpoint: send a JSON-RPC message (tools, resources, subscriptions) to an agent session
         * @description The Model Context Protocol over Streamable HTTP (the same tools and resources as the stdio server `service-mcp`). The merchant's API key (`X-Service-Api-Key`, or `Authorization: Bearer <key>`), or an OAuth access token issued for this endpoint (`Authorization: Bearer`; without credentials the 401 carries `WWW-Authenticate: Bearer resource_metadata=…`); every tool and resource sees only that merchant's invoices, and `list_invoices` is added. Scoped keys and tokens: `invoices:write` for create_invoice, `invoices:read` for the reading tools and resources, else 403 `insufficient_scope`. Start with `initialize` (no session header); its answer carries `Mcp-Session-Id`, which later requests must send. A 2026-07-28 client sends no `initialize` and no session: each request carries its revision in `params._meta` and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, and is answered statelessly (`server/discover`, `subscriptions/listen` streams bounded by `MCP_MAX_LISTEN_STREAMS`); a missing or disagreeing header answers 400 with JSON-RPC -32020. Sessions are bounded per owner (Cloud: the merchant; listener: the key, or each OAuth grant; `MCP_MAX_SESSIONS_PER_OWNER`, default 100), and their starts per owner and per client address (`MCP_INITIALIZE_RATE_LIMIT`, default 60 and 600 a minute): past either, 429 `too_many_sessions` with `Retry-After`; past the server's `MCP_MAX_SESSIONS`, 503 `capacity`. On Cloud a merchant's plan caps its open sessions and, apart, its listen streams (`CLOUD_MCP_SESSIONS_PER_PLAN`, default Free 10, Starter 50, Pro 100), and Free merchants together never take the part of the server's sessions and streams kept for paid plans (`CLOUD_FAIR_SHARE_RESERVE`, default 20 %; a Free merchant holding none may take half of it): past either, 429 `too_many_sessions` whose message names the cap, with `Retry-After`. A browser `Origin` must be listed in `MCP_ALLOWED_ORIGINS`; requests without Origin are not browser requests and pass. Tool failures are tool results whose text starts with the stable error code.
         */
        post: operations["cloudMcpPost"];
        /**
         * MCP Streamable HTTP endpoint: end the session
         * @description Closes the session named by `Mcp-Session-Id` and its subscriptions. Idle sessions also close on their own (after 30 minutes without a request).
         */
        delete: operations["cloudMcpDelete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected resource metadata of the server's MCP endpoint (RFC 9728)
         * @description The same document as the path-suffixed address. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        get: operations["oauthProtectedResource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected resource metadata of /mcp (RFC 9728)
         * @description Names the endpoint (`resource`), its authorization server, the scopes `invoices:read` and `invoices:write`, and `bearer_methods_supported: ["header"]`. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        get: operations["oauthProtectedResourceMcp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/api/v1/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth protected resource metadata of /api/v1/mcp (RFC 9728)
         * @description Names the endpoint (`resource`), its authorization server, the scopes `invoices:read` and `invoices:write`, and `bearer_methods_supported: ["header"]`. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        get: operations["cloudOauthProtectedResourceMcp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth authorization server metadata (RFC 8414)
         * @description Endpoints, `code_challenge_methods_supported: ["S256"]`, `client_id_metadata_document_supported: true`. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        get: operations["oauthAuthorizationServer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth authorization endpoint: authorization code with PKCE S256, `resource` required
         * @description Query: `response_type=code`, `client_id` (a registered id, or an https URL of a Client ID Metadata Document), `redirect_uri`, `code_challenge` + `code_challenge_method=S256`, `scope`, `state`, and `resource` = the MCP endpoint URL. Sends the browser to the consent page, where the merchant signs in with an API key and approves or denies; then back to `redirect_uri` with `code` or `error`. An unregistered `redirect_uri` gets an error page and no redirect. Every parameter (`state` too) is at most 1,000 characters, all together 4,000: a longer one goes back to the client as `invalid_request`, nothing stored. Throttled per client address: 60 requests a minute, then 429 with `Retry-After`. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        get: operations["oauthAuthorize"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OAuth token endpoint: code exchange (with code_verifier) and refresh (rotating)
         * @description Form body. `grant_type=authorization_code` with `code`, `code_verifier`, `redirect_uri`, `client_id`; or `grant_type=refresh_token`. Access tokens live 15 minutes and are accepted only by the MCP endpoint named in `resource`; each refresh returns a new refresh token and a reused one revokes the grant. A reused code fails and revokes what it issued. A grant lives only as long as the API key that approved it: once that key is revoked (Cloud) or SERVICE_API_KEY changed (listener), its tokens stop working and a refresh fails with `invalid_grant`. Throttled per client address: 600 requests a minute. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        post: operations["oauthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OAuth dynamic client registration (RFC 7591)
         * @description JSON client metadata: at most 10 `redirect_uris`, a `client_name` of at most 200 characters, every other string at most 1,000 characters, a list at most 10 entries, the whole at most 8,000 characters of JSON. Fields of features this server does not offer (`post_logout_redirect_uris` and the other logout fields, `request_uris`, `jwks`, `jwks_uri`, `sector_identifier_uri`, `initiate_login_uri`, `software_statement`, …) are refused with `invalid_client_metadata` (empty ones are dropped); unknown fields are ignored. No registration access token is issued. A client that holds no grant is deleted a day after it registered. Throttled per client address: 20 a minute (429 `too_many_requests` with Retry-After). Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        post: operations["oauthRegister"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OAuth token revocation (RFC 7009)
         * @description Form body `token` (an access or refresh token) and `client_id`. The token stops working at once. Answers errors in the OAuth format (`{"error", "error_description"}`), not the envelope. Served only where OAuth is on: a listener with SERVICE_API_KEY, and Cloud; its base URL is PUBLIC_URL (else the loopback URL served).
         */
        post: operations["oauthRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "invoice.confirmed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An invoice reached its required confirmations */
        post: operations["webhook_invoice_confirmed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payment.orphan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A transfer matched no open invoice */
        post: operations["webhook_payment_orphan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.payment_seen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Opt-in: a first payment toward an invoice was seen, not yet confirmed */
        post: operations["webhook_invoice_payment_seen"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.partial": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Opt-in: payments in blocks do not cover an invoice yet */
        post: operations["webhook_invoice_partial"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Opt-in: an invoice expired unpaid */
        post: operations["webhook_invoice_expired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        ErrorDetail: {
            /**
             * @description Stable, machine-readable code: branch on this.
             * @enum {string}
             */
            code: "bad_body" | "bad_query" | "invalid_amount" | "unsupported_chain" | "chain_disabled" | "base_disabled" | "asset_disabled" | "unauthorized" | "invalid_key_request" | "insufficient_scope" | "origin_not_allowed" | "plan_limit_reached" | "invalid_email" | "invalid_shop_name" | "no_receive_method" | "private_key_rejected" | "invalid_xpub" | "invalid_address" | "invalid_webhook_url" | "unknown_webhook_event" | "unknown_plan" | "email_taken" | "method_unavailable" | "card_provider_error" | "missing_header" | "standard_signature_required" | "unsigned_event_id" | "invalid_signature" | "invalid_timestamp" | "timestamp_too_old" | "timestamp_too_new" | "not_found" | "headers_too_large" | "rate_limited" | "too_many_sessions" | "too_many_streams" | "create_failed" | "lookup_failed" | "database_unavailable" | "internal_error" | "rate_unavailable" | "invalid_lightning_connection" | "lightning_unavailable" | "capacity" | "invalid_payment" | "payment_in_progress" | "invoice_paid" | "invoice_ended" | "x402_unavailable" | "settlement_unavailable" | "settlement_failed";
            /** @description Human-readable; may change, never branch on it. */
            message: string;
            /**
             * @description What the code means, where several codes mean the same (an addition to the spec's envelope): `chain_not_configured` (The chain asked for (`btc`, `base`, `eth`, `polygon` or `arbitrum`) is not configured for this merchant. Codes: `chain_disabled`, `base_disabled`.) Branch on it where present; the codes stay as specified.
             * @enum {string}
             */
            condition?: "chain_not_configured";
            /** @description plan_limit_reached only: the current plan. */
            plan?: string;
            /** @description plan_limit_reached only: the monthly cap. */
            limit?: number;
            /** @description plan_limit_reached only: invoices created this month. */
            used?: number;
            /** @description invalid_payment only: the x402 reason (`invalidReason`), e.g. invalid_exact_evm_recipient_mismatch. */
            reason?: string;
        };
        /** @description Every non-2xx answer carries this envelope. */
        ErrorEnvelope: {
            error: components["schemas"]["ErrorDetail"];
        };
        /**
         * @description pending: waiting for payment. partial: payments in blocks (Bitcoin: verified; EVM: agreed by the sources) that do not yet cover the amount. confirmed: paid with the required confirmations (tx_hash, paid_at set, webhook queued). expired: passed expires_at unpaid. failed: could not be completed.
         * @enum {string}
         */
        InvoiceStatus: "pending" | "partial" | "confirmed" | "expired" | "failed";
        /** @description How the confirmation was verified. `sources:N`: N independent RPC sources reported the same transfer at the required depth (EVM chains). `proof-of-work`: the block was checked against a proof-of-work header chain (Bitcoin). `own-node`: the merchant declared its one source trusted, its own node (Bitcoin Core RPC, or `<PREFIX>_MIN_SOURCES=1`). `own-wallet`: a Lightning payment the merchant's own wallet reported settled over Nostr Wallet Connect, with a preimage that hashes to the invoice's payment hash. `single-source`: one outside source was believed; a merchant may refuse to ship on it. */
        Verification: string;
        /** @description Body of POST /invoice. JSON, at most 16 KB. A field not listed here is refused with 400 `bad_body` naming it. */
        CreateInvoiceRequest: {
            /**
             * @description `btc`, `base`, `eth`, `polygon` or `arbitrum`; default `btc`.
             * @enum {string}
             */
            chain?: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            /** @description Bitcoin (`btc`): the amount in satoshis (1 BTC = 100,000,000 sats), an integer >= 1. Required unless the invoice is priced with `price_amount` and `price_currency`. */
            amount_sats?: number;
            /** @description EVM chains (`base`, `eth`, `polygon` or `arbitrum`): the amount in US dollars, > 0; settled in USDC or USDT (1 token = 1 USD). Required unless the invoice is priced with `price_amount` and `price_currency`. */
            amount_usd?: number;
            /** @description A price in a fiat currency instead of the amount field, as decimal text ("25.00"; at most the currency's minor unit of decimals, none for JPY), with `price_currency`. Converted to the asset at creation on the median of several rate sources' quotes and fixed for the invoice's life. */
            price_amount?: string;
            /** @description ISO 4217 code of `price_amount`; sent with it, never alone. */
            price_currency?: components["schemas"]["PriceCurrency"];
            /**
             * @description EVM chains only (`base`, `eth`, `polygon` or `arbitrum`): `usdc` (default) or `usdt` (always fixed-address mode).
             * @enum {string}
             */
            asset?: "usdc" | "usdt";
            /** @description Bitcoin (`btc`) only: how the payer may pay, `onchain` (a fresh address) and/or `lightning` (a BOLT11 invoice from the merchant's own wallet over Nostr Wallet Connect). Default: every method the merchant has. A method asked for that the merchant lacks is refused (`chain_disabled`); `lightning` alone when the wallet does not answer is 503 `lightning_unavailable`. */
            payment_methods?: components["schemas"]["BtcPaymentMethod"][];
            /** @description Any chain: shown to the payer on the checkout page (Bitcoin: also the BIP-21 label of the payment URI); at most 200 characters. */
            memo?: string;
            /** @description Lifetime in seconds, >= 1 (Bitcoin and EVM xpub mode); default 3600. Fixed-address invoices always live one hour. */
            expires_in?: number;
            /** @description The shop's own order reference, 1-128 characters, returned on the invoice and in its webhooks. Need not be unique. */
            order_id?: string;
            /** @description A flat object of at most 20 string keys (1-40 characters) with string values (at most 500 characters each), returned on the invoice and in its webhooks. No nesting, numbers or nulls. */
            metadata?: {
                [key: string]: string;
            };
            /** @description Where the checkout page sends the payer back once the invoice is paid ("Return to <shop>"; never shown before). https, or http to localhost, 127.0.0.1 or [::1] where the service does not run in production; at most 2000 characters, no user name or password. */
            redirect_url?: string;
        };
        /** @enum {string} */
        BtcPaymentMethod: "onchain" | "lightning";
        /** @description A stored Bitcoin invoice (GET /invoice/:id). */
        BtcInvoice: {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @constant */
            chain: "btc";
            /** @constant */
            asset: "BTC";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description Exact decimal BTC amount, e.g. "0.00001000". */
            amount_btc: string;
            /** @description The amount in satoshis. */
            amount_sats: number;
            /**
             * @description Bitcoin network of the address, from the merchant key (or BTC_NETWORK).
             * @enum {string}
             */
            network: "mainnet" | "testnet" | "signet" | "regtest";
            /** @description The memo given at creation, if any. */
            memo: string | null;
            /** @description BOLT11 invoice from the merchant's own Lightning wallet for exactly the amount, expiring with the invoice; null when the invoice is on-chain only. Absent only from services released before Lightning. A Lightning-only invoice has no address: its `receive_address` repeats this BOLT11 and `child_index` is null. */
            lightning_invoice?: string | null;
            /** @description Payment hash of `lightning_invoice` (hex); a settlement counts only with a preimage that hashes to it. Null when on-chain only. */
            payment_hash?: string | null;
            /** @description How the invoice was completed: `onchain` or `lightning`; null until confirmed. */
            payment_method?: components["schemas"]["BtcPaymentMethod"] | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
        };
        /** @description A Bitcoin invoice as returned by POST /invoice. */
        BtcInvoiceCreated: {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @constant */
            chain: "btc";
            /** @constant */
            asset: "BTC";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description Exact decimal BTC amount, e.g. "0.00001000". */
            amount_btc: string;
            /** @description The amount in satoshis. */
            amount_sats: number;
            /**
             * @description Bitcoin network of the address, from the merchant key (or BTC_NETWORK).
             * @enum {string}
             */
            network: "mainnet" | "testnet" | "signet" | "regtest";
            /** @description The memo given at creation, if any. */
            memo: string | null;
            /** @description BOLT11 invoice from the merchant's own Lightning wallet for exactly the amount, expiring with the invoice; null when the invoice is on-chain only. Absent only from services released before Lightning. A Lightning-only invoice has no address: its `receive_address` repeats this BOLT11 and `child_index` is null. */
            lightning_invoice?: string | null;
            /** @description Payment hash of `lightning_invoice` (hex); a settlement counts only with a preimage that hashes to it. Null when on-chain only. */
            payment_hash?: string | null;
            /** @description How the invoice was completed: `onchain` or `lightning`; null until confirmed. */
            payment_method?: components["schemas"]["BtcPaymentMethod"] | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
            /** @description Derivation path of the address, e.g. m/84'/0'/0'/0/7. */
            derivation_path: string;
            /** @description BIP-21 URI with the amount in BTC and the memo as label; with Lightning too, its `lightning=` parameter carries the BOLT11 (a unified QR any wallet pays either way). A Lightning-only invoice: `lightning:<BOLT11>`. */
            qr_uri: string;
            /**
             * Format: uri
             * @description Block-explorer link for the receive address.
             */
            verify_url: string;
        };
        /** @description A stored stablecoin invoice on an EVM chain (`base`, `eth`, `polygon` or `arbitrum`) (GET /invoice/:id). */
        BaseInvoice: {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @enum {string} */
            asset: "USDC" | "USDT";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description The USD amount requested. */
            amount_usd: number;
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /**
             * @description Present only for fixed-address invoices.
             * @constant
             */
            mode?: "fixed-address";
            /** @description Fixed-address only: the nonce encoded in the low decimals of the amount. */
            nonce?: number;
            /** @description Fixed-address only: the ERC-20 contract the payer must send. */
            token_address?: string;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
        };
        /** @description An EVM chain invoice in xpub mode, as returned by POST /invoice. */
        BaseXpubInvoiceCreated: {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @constant */
            asset: "USDC";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description The USD amount requested. */
            amount_usd: number;
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /** @description EIP-681 URI: ethereum:<token>@<chain id>/transfer?address=<recipient>&uint256=<units>. */
            qr_uri: string;
            /** @description Derivation path of the address under the merchant account xpub. */
            derivation_path: string;
            /**
             * Format: uri
             * @description Block-explorer link for the receive address.
             */
            verify_url: string;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
        };
        /** @description An EVM chain invoice in fixed-address mode, as returned by POST /invoice. The payer must send exactly amount_token. */
        BaseFixedInvoiceCreated: {
            invoice_id: string;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @enum {string} */
            asset: "USDC" | "USDT";
            /** @constant */
            mode: "fixed-address";
            /** @description Encoded in the low decimals of the amount; the payer must send the exact amount. */
            nonce: number;
            /** @description The ERC-20 contract the payer must send. */
            token_address: string;
            /** @description The merchant's fixed receive address, shared by all fixed-address invoices. */
            receive_address: string;
            /** @description The USD amount requested. */
            amount_usd: number;
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            status: components["schemas"]["InvoiceStatus"];
            /** Format: date-time */
            expires_at: string;
            /** @description EIP-681 URI with the exact amount in base units. */
            qr_uri: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
        };
        CreatedInvoice: components["schemas"]["BtcInvoiceCreated"] | components["schemas"]["BaseXpubInvoiceCreated"] | components["schemas"]["BaseFixedInvoiceCreated"];
        StoredInvoice: components["schemas"]["BtcInvoice"] | components["schemas"]["BaseInvoice"];
        /** @description The watcher of one EVM chain (`base`, `eth`, `polygon` or `arbitrum`). */
        BaseHealth: {
            /** @description Independent JSON-RPC sources configured in the chain's own RPC setting: `BASE_RPC_URL` (base), `ETH_RPC_URL` (eth), `POLYGON_RPC_URL` (polygon), `ARBITRUM_RPC_URL` (arbitrum). */
            rpc_sources: number;
            /** @description Sources that answered on the last poll. */
            rpc_sources_up: number;
            /** @description False when fixed-address mode is on with a single RPC source: such invoices then stay pending. */
            fixed_address_confirming: boolean;
            /** @description Why the chain's payments may not confirm right now, if so. */
            warning: string | null;
            /** @description Last block of the chain whose Transfer logs were read. */
            last_block_height: number | null;
            /** @description Chain head reported by the scanning source. */
            head_block_height: number | null;
            watched_addresses: number;
            /** @description Payments matched but not yet reported by enough independent sources (min_sources; two for fixed-address). */
            awaiting_second_source: number;
            /** @description Sources that must report a payment before it counts (the chain's own setting: `BASE_MIN_SOURCES` (base), `ETH_MIN_SOURCES` (eth), `POLYGON_MIN_SOURCES` (polygon), `ARBITRUM_MIN_SOURCES` (arbitrum); default 2); 1 trusts one source as your own node. */
            min_sources?: number;
            /** @description Sources that reported a transfer or a block the others do not, within the last hour: nothing one source alone reports is counted. */
            disagreeing_sources?: {
                /** @description Scheme, host and port of the source. */
                source: string;
                reason: string;
                /**
                 * Format: date-time
                 * @description When it last disagreed.
                 */
                at: string;
            }[];
            /** @description What the chain's watcher is doing. */
            progress?: components["schemas"]["WatcherProgress"];
        };
        /** @description Request budget of one chain source (docs/chains.md, "Request budgets"). */
        ChainSourceBudget: {
            /** @description The source: scheme, host and port of its URL (never a path, which may hold an API key). */
            label: string;
            /** @description Requests sent to this source since start (each retry counts). */
            requests: number;
            /** @description HTTP 429 (Too Many Requests) answers received since start. */
            http_429: number;
            /** @description When the next request is allowed (request budget empty, or a Retry-After or backoff window open); null when one may go now. */
            next_request_at: string | null;
        };
        /** @description One exchange rate source (docs/invoices.md, "Prices in your currency"). */
        RateSourceHealth: {
            /** @description The source as `RATE_SOURCES` names it (`kraken`, `coinbase`, …; the sandbox's are named `sandbox-…`). */
            name: string;
            /** @description Scheme, host and port of its base URL. */
            url: string;
            /**
             * @description `idle`: not asked yet (rates are asked only when an invoice is priced in a fiat currency). `ok`: its last quote counted. `outlier`: its last quote lay beyond `RATE_MAX_SPREAD` of the median and was ignored. `garbage`: its last answer was not its API's documented shape or held no usable price. `silent`: its last ask got no answer (refused, timed out, an HTTP error).
             * @enum {string}
             */
            state: "idle" | "ok" | "outlier" | "garbage" | "silent";
            /** @description What was wrong with its last answer (the outlier's pair and quote, the error); null when none. */
            problem: string | null;
            /** @description When it last answered a usable quote. */
            last_quote_at: string | null;
            /** @description Requests sent to it since start. */
            requests: number;
        };
        /** @description The merchant's Lightning wallet over Nostr Wallet Connect. */
        LightningHealth: {
            /** @description The wallet connection, shortened (its key and relays; never the secret). */
            wallet: string;
            /** @description Whether the wallet answered and was checked receive-only since the start. */
            ready: boolean;
            /** @description The last failure: the wallet silent or refused, an invoice that failed its checks, a settlement refused; null when none. */
            problem: string | null;
            /** @description Settlements reported without a preimage that hashes to the payment hash, refused since the start. */
            refused_settlements: number;
            relays: components["schemas"]["LightningRelayHealth"][];
        };
        LightningRelayHealth: {
            relay: string;
            connected: boolean;
            /** @description Wallet connections listening through this relay socket. */
            listeners: number;
            /** @description Subscriptions (REQs) open on it; connections are folded into a bounded number. */
            subscriptions: number;
            /** @description Why it does not serve now: down and being retried, or cut off for flooding or sending garbage. */
            problem: string | null;
            /** @description Times it was cut off for flooding or garbage since the start. */
            cut_offs: number;
        };
        /**
         * @description ISO 4217 code of a fiat price: USD, EUR, GBP, CHF, CAD, AUD, JPY.
         * @enum {string}
         */
        PriceCurrency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "JPY";
        /** @description What a chain watcher is doing. */
        WatcherProgress: {
            /** @description When the last pass over the chain finished without error; null before the first. */
            last_success_at: string | null;
            /** @description The step under way (e.g. "following blocks"), or "waiting for the next poll" between passes. */
            step: string;
            /**
             * Format: date-time
             * @description When that step began.
             */
            step_since: string;
            /** @description The last pass's error; null once a pass succeeds again. */
            last_error: string | null;
            /** @description Since when every pass has failed; null while passes succeed. */
            failing_since: string | null;
        };
        /** @description A chain watcher that has made no progress for several poll intervals (at least 2 minutes), or whose sources disagree (`disagreeing`), or (`component: database`) a database that cannot be used: unreachable, restarting, or (SQLite) full or locked; it clears when a query (SQLite: a write) succeeds again. A slow or rate-limited source whose answers still arrive is not a problem. */
        WatcherProblem: {
            /** @description The watcher: its chain, `btc`, `base`, `eth`, `polygon` or `arbitrum` (Cloud: for every merchant watcher of it); or `database` while the database cannot be used (always `failing`). */
            component: string;
            /**
             * @description `stalled`: one step (a request, a database call, the wait between passes) has been under way longer than the limit; the watcher is stuck and will not recover by itself. `failing`: every pass has failed for longer than the limit, as against a source that is down; it catches up when the source returns. `disagreeing`: within the last hour a source reported a payment or block the chain's other sources do not (`reason` names it); nothing it alone reports is counted: check or replace that source. `invalid-source`: at once, a chain source served data that failed verification (Bitcoin: a header without valid proof of work or not linking to the verified chain, a block not matching its header); `reason` names the source and what failed. It is ignored meanwhile, and the problem clears once it serves a valid tip again. `unproven-tip` (Bitcoin): at once, a source claims a tip that does not link to the verified chain (ancestors unknown or not served, or walking back from it used up its request allowance); `reason` names it; it is set aside for a while like an invalid one and the other sources carry the chain. `syncing` (Bitcoin): the header chain is still syncing (a first start, or a catch-up after downtime); `reason` gives the height, the target and an estimate of the time left. Invoices are still created meanwhile; no payment confirms before the sync ends.
             * @enum {string}
             */
            kind: "stalled" | "failing" | "disagreeing" | "invalid-source" | "unproven-tip" | "syncing";
            /** @description Human-readable: the step and for how long, the last error, or the source and what failed verification. */
            reason: string;
            /**
             * Format: date-time
             * @description When the stuck step began, or when the passes started failing.
             */
            since: string;
        };
        BtcHeaderSource: {
            /** @description The Esplora source: scheme, host and port of its URL (never a path, which may hold an API key). */
            source: string;
            /**
             * @description `syncing`: the chain is still being brought up to its tip (or it was not asked yet). `ok`: its tip is the best verified tip. `behind`: its tip is a verified header below the best one, or on a lighter branch (slow, or withholding blocks: noticed, not provable). `invalid`: it served a header or block that failed verification and is ignored for a while. `unproven-tip`: the tip it claims does not link to the verified chain (ancestors unknown or not served, or walking back used up its request allowance); ignored for a while like `invalid`. `unreachable`: it did not answer. `unknown`: no longer given (kept for older clients).
             * @enum {string}
             */
            state: "syncing" | "ok" | "behind" | "invalid" | "unproven-tip" | "unreachable" | "unknown";
            /** @description Height of the source's tip on the verified chain; null when unknown. */
            tip_height: number | null;
            /** @description What is wrong with it, if anything. */
            problem: string | null;
        };
        /** @description The Bitcoin header chain verified from the release checkpoint (third-party Esplora sources): every confirmation is counted on it. */
        BtcHeaderChain: {
            /** @description The Bitcoin network whose consensus rules the headers are checked by. */
            network: string;
            /** @description Height of the best verified header (most cumulative work); null before the first. */
            height: number | null;
            /** @description Highest tip a source claimed; above `height` while the chain syncs. */
            target_height: number | null;
            /** @description False during the first sync from the checkpoint: no payment confirms before it ends. */
            synced: boolean;
            /** @description Height of the release's checkpoint the chain is verified from (-1: from the genesis block). */
            checkpoint_height: number;
            /** @description While syncing: seconds left at the pace measured so far; null once synced, or before a pace is known. */
            estimated_seconds_left?: number | null;
            /** @description Set when the release's checkpoint is older than 180 days: a first sync then downloads that many more headers (docs/self-hosting.md); upgrade to a newer release. */
            warning?: string | null;
            sources: components["schemas"]["BtcHeaderSource"][];
        };
        /** @description What only a Bitcoin watcher reports. */
        BitcoinWatcherHealth: {
            /**
             * @description Which Bitcoin chain source the watcher reads.
             * @enum {string}
             */
            source: "esplora" | "bitcoin-core";
            /** @description Last error of the Bitcoin chain source while it keeps failing (retried with backoff); null when healthy. */
            source_error: string | null;
            /** @description Whether the chain source push connection (WebSocket) is up. */
            ws_connected: boolean;
            /** @description The verified header chain and each Esplora source's standing (when Bitcoin is watched through Esplora; absent with your own Bitcoin Core, which is trusted). */
            headers?: components["schemas"]["BtcHeaderChain"];
            /** @description How the watcher follows unconfirmed payments. */
            watch: {
                /**
                 * @description `full`: every new mempool transaction is read (your own node, or an Esplora declared self-hosted); `address`: only the open invoices' addresses, over the mempool.space WebSocket or polled (a third-party Esplora).
                 * @enum {string}
                 */
                mode: "full" | "address";
                /** @description Addresses the WebSocket tracks now (0 while it is down or in `full` mode); the rest of the open invoices are polled. */
                ws_tracked: number;
                /** @description Last error of the best-effort step (mempool scan or address polls) while it keeps failing; blocks and confirmations go on regardless. */
                live_error: string | null;
            };
            /** @description Address gap of the Bitcoin wallet key (when Bitcoin is watched): what gap limit the merchant wallet needs to show every payment. */
            gap?: {
                /** @description Highest child index handed out to an invoice for the current wallet key; null before the first invoice. */
                highest_child_index: number | null;
                /** @description Highest child index with a payment seen (mempool or block; a payment that vanished does not count); null when none. */
                highest_paid_child_index: number | null;
                /** @description Longest run of consecutive unused child indexes below highest_child_index, counted from index 0: runs before the first paid index, between paid ones and after the last one all count. */
                longest_unused_run: number;
                /** @description Gap limit the wallet must use to show every payment to these addresses: longest_unused_run + 1. Above 20 (the usual default) the wallet must be told. */
                wallet_gap_limit: number;
            };
        };
        /** @description One chain's watcher, in the same shape for every chain: the common fields, then its family's part. */
        ChainHealth: {
            /**
             * @description Which of the parts below the entry carries: `bitcoin` or `evm`.
             * @enum {string}
             */
            family: "bitcoin" | "evm";
            /** @description Addresses the chain's watcher follows. */
            watched_addresses: number;
            /** @description When the chain source last reported anything; null before the first. */
            last_event_at: string | null;
            /** @description Height of the last processed block; null before the first. */
            last_block_height: number | null;
            /** @description What the chain's watcher is doing. */
            progress: components["schemas"]["WatcherProgress"];
            /** @description Bitcoin only. */
            bitcoin?: components["schemas"]["BitcoinWatcherHealth"];
            /** @description EVM chains only. */
            evm?: components["schemas"]["BaseHealth"];
        };
        /** @description GET /health. Further fields may be added; never rely on their absence. */
        Health: {
            /** @description True when the listener serves requests, its database answers and no chain watcher has a problem (see `problems`). */
            ok: boolean;
            /** @description Why `ok` is false: a chain watcher stalled or failing for several poll intervals, or the database that cannot be used (`component: database`). Empty when none. */
            problems?: components["schemas"]["WatcherProblem"][];
            /** @description Whether the chain source push connection (WebSocket) is up. */
            ws_connected: boolean;
            /** @description Number of watched addresses. Like last_event_at and last_block_height, of the first configured chain in the order `btc`, `base`, `eth`, `polygon` or `arbitrum`; every chain's figures are in `chains`. */
            subscribed_count: number;
            /** @description When the chain source last reported anything (the first configured chain, as `subscribed_count`). */
            last_event_at: string | null;
            /** @description Height of the last processed block (the first configured chain, as `subscribed_count`). */
            last_block_height: number | null;
            /** @description Seconds since the listener started. */
            uptime_s: number;
            /** @description Every configured chain's watcher (`btc`, `base`, `eth`, `polygon` or `arbitrum`), keyed by chain, each in the same shape (an addition to the spec's Health). */
            chains?: {
                /** @description Bitcoin, when configured. */
                btc?: components["schemas"]["ChainHealth"];
                /** @description Base, when configured (RPC sources in `BASE_RPC_URL`). */
                base?: components["schemas"]["ChainHealth"];
                /** @description Ethereum, when configured (RPC sources in `ETH_RPC_URL`). */
                eth?: components["schemas"]["ChainHealth"];
                /** @description Polygon, when configured (RPC sources in `POLYGON_RPC_URL`). */
                polygon?: components["schemas"]["ChainHealth"];
                /** @description Arbitrum One, when configured (RPC sources in `ARBITRUM_RPC_URL`). */
                arbitrum?: components["schemas"]["ChainHealth"];
            };
            /**
             * @deprecated
             * @description Deprecated: use `chains.btc.bitcoin.source`. Which Bitcoin chain source the listener reads (when Bitcoin is configured).
             * @enum {string}
             */
            btc_source?: "esplora" | "bitcoin-core";
            /**
             * @deprecated
             * @description Deprecated: use `chains.btc.bitcoin.source_error`. Last error of the Bitcoin chain source while it keeps failing (retried with backoff); null when healthy.
             */
            btc_source_error?: string | null;
            /**
             * @deprecated
             * @description Deprecated: use `chains.btc.progress`. What the Bitcoin watcher is doing (when Bitcoin is watched).
             */
            btc_progress?: components["schemas"]["WatcherProgress"];
            /**
             * @deprecated
             * @description Deprecated: use `chains.btc.bitcoin.headers`. The verified header chain and each Esplora source's standing (when Bitcoin is watched through Esplora; absent with your own Bitcoin Core, which is trusted).
             */
            btc_headers?: components["schemas"]["BtcHeaderChain"];
            /**
             * @deprecated
             * @description Deprecated: use `chains.btc.bitcoin.watch`. How the Bitcoin watcher follows unconfirmed payments (when Bitcoin is watched).
             */
            btc_watch?: {
                /**
                 * @description `full`: every new mempool transaction is read (your own node, or an Esplora declared self-hosted); `address`: only the open invoices' addresses, over the mempool.space WebSocket or polled (a third-party Esplora).
                 * @enum {string}
                 */
                mode: "full" | "address";
                /** @description Addresses the WebSocket tracks now (0 while it is down or in `full` mode); the rest of the open invoices are polled. */
                ws_tracked: number;
                /** @description Last error of the best-effort step (mempool scan or address polls) while it keeps failing; blocks and confirmations go on regardless. */
                live_error: string | null;
            };
            /**
             * @deprecated
             * @description Deprecated: use `chains.btc.bitcoin.gap`. Address gap of the Bitcoin wallet key (when Bitcoin is watched): what gap limit the merchant wallet needs to show every payment.
             */
            btc_gap?: {
                /** @description Highest child index handed out to an invoice for the current wallet key; null before the first invoice. */
                highest_child_index: number | null;
                /** @description Highest child index with a payment seen (mempool or block; a payment that vanished does not count); null when none. */
                highest_paid_child_index: number | null;
                /** @description Longest run of consecutive unused child indexes below highest_child_index, counted from index 0: runs before the first paid index, between paid ones and after the last one all count. */
                longest_unused_run: number;
                /** @description Gap limit the wallet must use to show every payment to these addresses: longest_unused_run + 1. Above 20 (the usual default) the wallet must be told. */
                wallet_gap_limit: number;
            };
            /** @description Webhook delivery backlog. */
            webhooks: {
                /** @description Events waiting for their first delivery attempt. */
                queued: number;
                /** @description Events not yet acknowledged after at least one attempt; retries follow. */
                failing: number;
                /** @description Events that gave up after the last attempt; re-send with `service deliveries resend`. */
                failed: number;
            };
            /** @description Assets this listener accepts invoices for, from its configuration. Extension beyond the spec; the MCP server reads it. */
            enabled_assets?: ("btc" | "btc-lightning" | "usdc-base" | "usdt-base" | "usdc-eth" | "usdt-eth" | "usdc-polygon" | "usdt-polygon" | "usdc-arbitrum" | "usdt-arbitrum")[];
            /**
             * @deprecated
             * @description Deprecated: use `chains.base.evm`. Base's watcher, present when Base is configured.
             */
            base?: components["schemas"]["BaseHealth"];
            /**
             * @deprecated
             * @description Deprecated: use `chains.<chain>.evm`. Per EVM chain configured (`base`, `eth`, `polygon` or `arbitrum`): its watcher, in the fields of `base`.
             */
            evm_chains?: {
                [key: string]: components["schemas"]["BaseHealth"];
            };
            /** @description Per chain source (Esplora, Bitcoin Core, each RPC URL of an EVM chain): requests made, 429s received, when the next request is allowed. */
            chain_sources?: components["schemas"]["ChainSourceBudget"][];
            /** @description The exchange rate sources fiat prices are converted with: whether each one's last quote counted, was an outlier, garbage or missing. A source named here is outvoted, never believed alone; `ok` does not change. */
            rate_sources?: components["schemas"]["RateSourceHealth"][];
            /** @description Present when some EVM chain takes x402 payments. */
            x402?: components["schemas"]["PaymentSettlementHealth"];
            /** @description Present when Bitcoin invoices take Lightning (MERCHANT_NWC_URL). */
            lightning?: components["schemas"]["LightningHealth"];
        };
        BtcCheckoutView: {
            invoice_id: string;
            /** @description The name shown to the payer (listener: `SHOP_NAME`; Cloud: the account shop name). */
            shop_name: string;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The address the payer sends to. */
            receive_address: string;
            /** @description The payment URI encoded in the QR code: BIP-21 for Bitcoin, EIP-681 (with the chain id) for the EVM chains. */
            qr_uri: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            paid_at: string | null;
            /** @description Block-explorer page of the receive address; null when no explorer is configured for the chain. */
            verify_url: string | null;
            /** @description Block-explorer page of `tx_hash`; null until confirmed. */
            tx_url: string | null;
            /** @description The invoice's `x402_url`: where an agent pays it with an x402 client (HTTP 402); null where it cannot (Bitcoin, USDT, paid or ended). */
            x402_url: string | null;
            /** @description An addition to the spec's view: what the payer still has to send, in the same unit as `amount_btc` / `amount_token`: the amount minus the payments already seen toward it (any number of confirmations). Equal to the amount until something arrives; while the invoice is `partial`, `qr_uri` asks for exactly this. */
            amount_due: string;
            /** @description An addition to the spec's view: true when payments covering the amount are seen while the status is still `pending`, waiting for confirmations (Bitcoin: in the mempool or blocks, 10-60 minutes; EVM chains: mined, the confirmations set for the chain: `BASE_CONFIRMATIONS` (base), `ETH_CONFIRMATIONS` (eth), `POLYGON_CONFIRMATIONS` (polygon), `ARBITRUM_CONFIRMATIONS` (arbitrum)). The page then tells the payer not to pay again. */
            payment_seen: boolean;
            /** @description An addition to the spec's view: the memo the merchant gave at creation (any chain; null when none), shown to the payer. */
            memo: string | null;
            /** @description An addition to the spec's view: the invoice's return link, only once it is `confirmed` (null before, and when none was given), so the page offers "Return to <shop>" to a payer who paid and to no one else. Absent only from services released before it. */
            redirect_url?: string | null;
            /**
             * Format: date-time
             * @description The service's clock when this view was made (an addition to the spec's view): the page counts down to `expires_at` from it, so a payer device with a wrong clock still shows the right time left.
             */
            server_time: string;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @constant */
            chain: "btc";
            /** @constant */
            asset: "BTC";
            /**
             * @description An addition to the spec's view: the Bitcoin network of the address, so the page can say when the coins are test coins.
             * @enum {string}
             */
            network: "mainnet" | "testnet" | "signet" | "regtest";
            /** @description Exact decimal BTC amount to send, e.g. "0.00050000". */
            amount_btc: string;
            /** @description An addition to the spec's view: the BOLT11 invoice the payer may pay over Lightning instead (the page's Lightning tab); null when on-chain only, or once the invoice has ended. Absent only from services released before Lightning. */
            lightning_invoice?: string | null;
        };
        BaseCheckoutView: {
            invoice_id: string;
            /** @description The name shown to the payer (listener: `SHOP_NAME`; Cloud: the account shop name). */
            shop_name: string;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The address the payer sends to. */
            receive_address: string;
            /** @description The payment URI encoded in the QR code: BIP-21 for Bitcoin, EIP-681 (with the chain id) for the EVM chains. */
            qr_uri: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            paid_at: string | null;
            /** @description Block-explorer page of the receive address; null when no explorer is configured for the chain. */
            verify_url: string | null;
            /** @description Block-explorer page of `tx_hash`; null until confirmed. */
            tx_url: string | null;
            /** @description The invoice's `x402_url`: where an agent pays it with an x402 client (HTTP 402); null where it cannot (Bitcoin, USDT, paid or ended). */
            x402_url: string | null;
            /** @description An addition to the spec's view: what the payer still has to send, in the same unit as `amount_btc` / `amount_token`: the amount minus the payments already seen toward it (any number of confirmations). Equal to the amount until something arrives; while the invoice is `partial`, `qr_uri` asks for exactly this. */
            amount_due: string;
            /** @description An addition to the spec's view: true when payments covering the amount are seen while the status is still `pending`, waiting for confirmations (Bitcoin: in the mempool or blocks, 10-60 minutes; EVM chains: mined, the confirmations set for the chain: `BASE_CONFIRMATIONS` (base), `ETH_CONFIRMATIONS` (eth), `POLYGON_CONFIRMATIONS` (polygon), `ARBITRUM_CONFIRMATIONS` (arbitrum)). The page then tells the payer not to pay again. */
            payment_seen: boolean;
            /** @description An addition to the spec's view: the memo the merchant gave at creation (any chain; null when none), shown to the payer. */
            memo: string | null;
            /** @description An addition to the spec's view: the invoice's return link, only once it is `confirmed` (null before, and when none was given), so the page offers "Return to <shop>" to a payer who paid and to no one else. Absent only from services released before it. */
            redirect_url?: string | null;
            /**
             * Format: date-time
             * @description The service's clock when this view was made (an addition to the spec's view): the page counts down to `expires_at` from it, so a payer device with a wrong clock still shows the right time left.
             */
            server_time: string;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @enum {string} */
            asset: "USDC" | "USDT";
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /** @description Fixed-address invoices only: the nonce in the low decimals of the amount. The payer must send exactly `amount_token`. */
            nonce?: number;
        };
        /** @description Display-only fields of an invoice for its hosted checkout page. Public: it carries nothing secret. */
        CheckoutView: components["schemas"]["BtcCheckoutView"] | components["schemas"]["BaseCheckoutView"];
        /** @description Sent when an invoice moves to confirmed. */
        InvoiceConfirmedEvent: {
            /** @constant */
            event: "invoice.confirmed";
            /** @description The event id, the same on every retry and equal to the `webhook-id` header: de-duplicate by it. */
            event_id: string;
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            asset: string;
            /** @description Decimal amount in the asset's unit (BTC or token), e.g. "0.00001000". */
            amount: string;
            address: string;
            /** @description The transaction that completed the payment; null when it was paid over Lightning (see `payment_hash` and `preimage`). */
            tx_hash: string | null;
            /** @description Confirmations of `tx_hash`; 0 for a Lightning payment, final once settled. */
            confirmations: number;
            /** @description Bitcoin invoices: `onchain` or `lightning`, how the invoice was completed. Absent on EVM chains. */
            payment_method?: components["schemas"]["BtcPaymentMethod"];
            /** @description Lightning only: the payment hash of the BOLT11 invoice that was paid. */
            payment_hash?: string;
            /** @description Lightning only: the preimage the wallet reported, whose SHA-256 is `payment_hash`: proof of payment. */
            preimage?: string;
            /** Format: date-time */
            confirmed_at: string;
            /** @description How the confirmation was verified; always sent by this version (absent only on events queued by an earlier one). */
            verification?: components["schemas"]["Verification"];
            /** @description The order reference given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            order_id?: string | null;
            /** @description The metadata given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The memo given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            memo?: string | null;
            /** @description The return link given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
        };
        /** @description A transfer that matches no open invoice (inexact amount, or invoice expired). The funds are in your wallet; no invoice is marked paid; handle it by hand. */
        PaymentOrphanEvent: {
            /** @constant */
            event: "payment.orphan";
            /** @description The event id, the same on every retry and equal to the `webhook-id` header: de-duplicate by it. */
            event_id: string;
            /** @enum {string} */
            chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            asset: string;
            /** @description ERC-20 contract; null for Bitcoin. */
            token_address: string | null;
            /** @description The receive address the transfer went to (Lightning: the BOLT11 invoice that was paid). */
            address: string;
            /** @description The transaction; null for a Lightning payment. */
            tx_hash: string | null;
            /** @description Bitcoin only: `onchain` or `lightning`. */
            payment_method?: components["schemas"]["BtcPaymentMethod"];
            /** @description Lightning only: the payment hash of the BOLT11 invoice paid after the invoice was already completed (an overpayment). */
            payment_hash?: string;
            /** @description Decimal string in the asset's unit (e.g. "12.000417" USDC, "0.00005" BTC). */
            value: string;
            /**
             * Format: date-time
             * @description ISO 8601 time the listener saw the transfer.
             */
            detected_at: string;
        };
        /**
         * @description An event sent only to merchants who subscribed to it.
         * @enum {string}
         */
        OptInWebhookEvent: "invoice.payment_seen" | "invoice.partial" | "invoice.expired";
        /** @description Opt-in. A first payment toward the invoice was seen, not yet confirmed (sent once per invoice). `amount_paid` is its verified amount; it may still be replaced or reorganised away: fulfil on invoice.confirmed only. */
        InvoicePaymentSeenEvent: {
            /** @constant */
            event: "invoice.payment_seen";
            /** @description The event id, the same on every retry and equal to the `webhook-id` header: de-duplicate by it. */
            event_id: string;
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            asset: string;
            /**
             * @description The invoice status when the event was written.
             * @enum {string}
             */
            status: "pending" | "partial" | "expired";
            /** @description The invoice's amount: decimal in the asset's unit (BTC or token), e.g. "12.500000". */
            amount: string;
            /** @description Verified so far, in the same unit, at any number of confirmations: Bitcoin payments whose transaction bytes hash to their txid (in the mempool or in blocks), EVM transfers the RPC sources agree on. Not yet confirmed: nothing is paid until invoice.confirmed. */
            amount_paid: string;
            address: string;
            /**
             * Format: date-time
             * @description When the service stored the change.
             */
            occurred_at: string;
            /** @description The order reference given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            order_id?: string | null;
            /** @description The metadata given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The memo given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            memo?: string | null;
            /** @description The return link given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
        };
        /** @description Opt-in. Payments in blocks do not cover the amount yet: the invoice reads `partial` (sent once per invoice). */
        InvoicePartialEvent: {
            /** @constant */
            event: "invoice.partial";
            /** @description The event id, the same on every retry and equal to the `webhook-id` header: de-duplicate by it. */
            event_id: string;
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            asset: string;
            /**
             * @description The invoice status when the event was written.
             * @enum {string}
             */
            status: "pending" | "partial" | "expired";
            /** @description The invoice's amount: decimal in the asset's unit (BTC or token), e.g. "12.500000". */
            amount: string;
            /** @description Verified so far, in the same unit, at any number of confirmations: Bitcoin payments whose transaction bytes hash to their txid (in the mempool or in blocks), EVM transfers the RPC sources agree on. Not yet confirmed: nothing is paid until invoice.confirmed. */
            amount_paid: string;
            address: string;
            /**
             * Format: date-time
             * @description When the service stored the change.
             */
            occurred_at: string;
            /** @description The order reference given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            order_id?: string | null;
            /** @description The metadata given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The memo given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            memo?: string | null;
            /** @description The return link given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
        };
        /** @description Opt-in. The invoice passed `expires_at` unpaid and reads `expired` (sent once per invoice). */
        InvoiceExpiredEvent: {
            /** @constant */
            event: "invoice.expired";
            /** @description The event id, the same on every retry and equal to the `webhook-id` header: de-duplicate by it. */
            event_id: string;
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            asset: string;
            /**
             * @description The invoice status when the event was written.
             * @enum {string}
             */
            status: "pending" | "partial" | "expired";
            /** @description The invoice's amount: decimal in the asset's unit (BTC or token), e.g. "12.500000". */
            amount: string;
            /** @description Verified so far, in the same unit, at any number of confirmations: Bitcoin payments whose transaction bytes hash to their txid (in the mempool or in blocks), EVM transfers the RPC sources agree on. Not yet confirmed: nothing is paid until invoice.confirmed. */
            amount_paid: string;
            address: string;
            /**
             * Format: date-time
             * @description When the service stored the change.
             */
            occurred_at: string;
            /** @description The order reference given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            order_id?: string | null;
            /** @description The metadata given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The memo given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            memo?: string | null;
            /** @description The return link given at creation. Always sent by this version (null when not given); absent only on events queued by an earlier one. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
        };
        /** @description How the merchant receives on one chain: an xpub, a fixed address (EVM chains), or both (EVM: USDC per address, USDT at the fixed one). */
        ReceiveMethod: {
            /** @enum {string} */
            chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
            /** @description The account public key: Bitcoin's BIP-84 key (btc), or an EVM account key at m/44'/60'/0' (any EVM chain). */
            xpub?: string;
            /** @description EVM chains only: a fixed EIP-55 checksummed 0x receive address (fixed-address mode, needed for USDT). */
            address?: string;
        };
        /** @description Body of POST /api/v1/signup. At least one receive method (or a Lightning connection) is required. */
        SignupRequest: {
            /** @description Required; one account per email. */
            email: string;
            /** @description Required; 2-80 characters; shown on hosted checkout. */
            shop_name: string;
            /**
             * @deprecated
             * @description Deprecated: use a `receive_methods` entry `{"chain": "btc", "xpub": …}`. Bitcoin BIP-84 account public key (xpub/zpub, tpub/vpub).
             */
            btc_xpub?: string;
            /**
             * @deprecated
             * @description Deprecated: use a `receive_methods` entry `{"chain": "base", "xpub": …}`. Base only: EVM account public key at m/44'/60'/0'; wins over base_address if both are sent.
             */
            base_xpub?: string;
            /**
             * @deprecated
             * @description Deprecated: use a `receive_methods` entry `{"chain": "base", "address": …}`. Base only: fixed EIP-55 checksummed 0x receive address (fixed-address mode, needed for USDT).
             */
            base_address?: string;
            /** @description One entry per chain the account receives on (any chain of POST /invoice). The deprecated `btc_xpub`, `base_xpub` and `base_address` say the same for `btc` and `base` only and are still accepted; an entry here wins over them for its chain. */
            receive_methods?: components["schemas"]["ReceiveMethod"][];
            /** @description https, default port, host resolving only to public addresses. */
            webhook_url?: string;
            /** @description Your own Lightning wallet: a receive-only Nostr Wallet Connect URI (`nostr+walletconnect://…`, `wss://` relays). Checked before the account is stored: the wallet must answer and must not let the connection spend. Bitcoin invoices then carry a BOLT11 invoice too, or are Lightning-only without a Bitcoin key. Stored as a secret: never returned. */
            lightning_nwc_url?: string;
        };
        SignupResponse: {
            merchant_id: string;
            /** @constant */
            plan: "free";
            /** @description Shown once; only its hash is stored. Send it as X-Service-Api-Key. */
            api_key: string;
            /** @description The first characters of the key, to recognise it later. */
            key_prefix: string;
            /** @description Shown once; present only when webhook_url was sent. */
            webhook_secret?: string;
        };
        /** @description GET /api/v1/me. Carries no secret. */
        Account: {
            merchant_id: string;
            shop_name: string;
            email: string;
            /**
             * @description A paid plan whose period ended reads as free.
             * @enum {string}
             */
            plan: "free" | "starter" | "pro";
            /** @description null on Free. */
            plan_expires_at: string | null;
            usage: {
                /** @description Invoices created this calendar month (UTC). */
                invoices_this_month: number;
                monthly_limit: number;
            };
            chains: {
                /** @enum {string} */
                chain: "btc" | "base" | "eth" | "polygon" | "arbitrum";
                /** @enum {string} */
                mode: "xpub" | "fixed-address";
                /** @description Shortened for display: first 8 and last 4 characters. */
                xpub: string | null;
                fixed_address: string | null;
            }[];
            /** @description The assets POST /api/v1/invoice accepts for this merchant now: what its receive methods enable (USDT needs a fixed address), in the contract's order. The stdio MCP server reads it. */
            enabled_assets: ("btc" | "btc-lightning" | "usdc-base" | "usdt-base" | "usdc-eth" | "usdt-eth" | "usdc-polygon" | "usdt-polygon" | "usdc-arbitrum" | "usdt-arbitrum")[];
            webhook_url: string | null;
            /** @description The opt-in events sent besides `invoice.confirmed` and `payment.orphan`, each once per invoice; empty: only those two. */
            webhook_events: components["schemas"]["OptInWebhookEvent"][];
            /** @description Your Lightning wallet connection (shortened; never its secret); null when none. Absent only from services released before Lightning. */
            lightning?: components["schemas"]["LightningConnectionView"] | null;
            api_keys: {
                prefix: string;
                label: string;
                /** Format: date-time */
                created_at: string;
                revoked: boolean;
                /** @description null: full access; else what the key may do (see POST /api/v1/keys). */
                scopes: ("invoices:read" | "invoices:write")[] | null;
            }[];
            /** Format: date-time */
            created_at: string;
        };
        /** @description GET /api/v1/plans. */
        PlanCatalogue: {
            plans: {
                /** @enum {string} */
                plan: "free" | "starter" | "pro";
                invoices_per_month: number;
                price_usd_per_month: number;
            }[];
            payment_methods: ("crypto" | "card")[];
            transaction_fee: number;
        };
        InvoiceListEntry: {
            invoice_id: string;
            chain: string;
            asset: string;
            /** @description Decimal in the asset unit (BTC, or the 6-decimal token amount). */
            amount: string;
            receive_address: string;
            status: components["schemas"]["InvoiceStatus"];
            tx_hash: string | null;
            /** Format: date-time */
            created_at: string;
            paid_at: string | null;
            /** Format: date-time */
            expires_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description Cloud: the hosted payment page, as in the create answer; present when hosted checkout is enabled. */
            checkout_url?: string;
        };
        /** @description Most recent first (by creation time, then invoice id). */
        InvoiceList: {
            invoices: components["schemas"]["InvoiceListEntry"][];
            /** @description Pass as `cursor` for the next page; null on the last page. Absent only from servers released before it. */
            next_cursor?: string | null;
        };
        WebhookSettingRequest: {
            webhook_url: string;
            /** @description The opt-in events to receive (replacing the ones saved); absent: the saved ones stay. An unknown name: 400 `unknown_webhook_event`. */
            webhook_events?: components["schemas"]["OptInWebhookEvent"][];
        };
        CreateKeyRequest: {
            /** @description 1-60 characters, to tell keys apart. */
            label: string;
            /** @description Absent: a full-access key. `["invoices:read"]`: read-only (read invoices, list them, wait for payment). `["invoices:write"]`: create-only. Both: invoices only, no account settings. */
            scopes?: ("invoices:read" | "invoices:write")[];
        };
        CreatedKey: {
            /** @description Shown once; only its hash is stored. */
            api_key: string;
            key_prefix: string;
            label: string;
            /** @description null: full access. */
            scopes: ("invoices:read" | "invoices:write")[] | null;
        };
        WebhookSettingResponse: {
            webhook_url: string;
            /** @description New signing secret, shown once; the previous one stops signing. */
            webhook_secret: string;
            /** @description The opt-in events sent besides `invoice.confirmed` and `payment.orphan`, each once per invoice; empty: only those two. */
            webhook_events: components["schemas"]["OptInWebhookEvent"][];
        };
        /** @description The merchant's Lightning wallet connection as it may be shown: never its secret. */
        LightningConnectionView: {
            /** @description The wallet's Nostr key, shortened: first 8 and last 4 characters. */
            wallet: string;
            /** @description The relays the connection speaks through. */
            relays: string[];
            /** @description The Bitcoin network the wallet said it is on. */
            network: string;
            /** @description Why the service could not use this connection at its last try (the wallet did not answer, answered an invoice that failed the checks, or the connection has come to allow spending or lost a receiving method), and since when; null while it works. Meanwhile Bitcoin invoices go out on-chain only. Absent from services released before it. */
            problem?: {
                reason: string;
                /** Format: date-time */
                since: string;
            } | null;
        };
        LightningSettingRequest: {
            /** @description A receive-only Nostr Wallet Connect URI from your own wallet (checked: it must answer and must not let the connection spend); null removes Lightning. */
            nwc_url: string | null;
        };
        LightningSettingResponse: {
            lightning: components["schemas"]["LightningConnectionView"] | null;
        };
        BillingCheckoutRequest: {
            /** @description `starter` or `pro`. */
            plan: string;
            /** @description `crypto` (default) or `card`; must be listed in payment_methods of GET /api/v1/plans. */
            method?: string;
        };
        BillingCheckoutResponse: {
            subscription_id: string;
            /** @enum {string} */
            method: "crypto" | "card";
            /** @enum {string} */
            plan: "starter" | "pro";
            amount_usd: number;
            /** @description crypto only: the Base stablecoin invoice that pays the plan. */
            invoice_id?: string;
            /** @description The hosted payment page (the invoice page for crypto, the card processor page for card). */
            checkout_url: string;
        };
        /** @description POST /api/v1/invoice: the listener invoice plus checkout_url. */
        CloudCreatedInvoice: {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @constant */
            chain: "btc";
            /** @constant */
            asset: "BTC";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description Exact decimal BTC amount, e.g. "0.00001000". */
            amount_btc: string;
            /** @description The amount in satoshis. */
            amount_sats: number;
            /**
             * @description Bitcoin network of the address, from the merchant key (or BTC_NETWORK).
             * @enum {string}
             */
            network: "mainnet" | "testnet" | "signet" | "regtest";
            /** @description The memo given at creation, if any. */
            memo: string | null;
            /** @description BOLT11 invoice from the merchant's own Lightning wallet for exactly the amount, expiring with the invoice; null when the invoice is on-chain only. Absent only from services released before Lightning. A Lightning-only invoice has no address: its `receive_address` repeats this BOLT11 and `child_index` is null. */
            lightning_invoice?: string | null;
            /** @description Payment hash of `lightning_invoice` (hex); a settlement counts only with a preimage that hashes to it. Null when on-chain only. */
            payment_hash?: string | null;
            /** @description How the invoice was completed: `onchain` or `lightning`; null until confirmed. */
            payment_method?: components["schemas"]["BtcPaymentMethod"] | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
            /** @description Derivation path of the address, e.g. m/84'/0'/0'/0/7. */
            derivation_path: string;
            /** @description BIP-21 URI with the amount in BTC and the memo as label; with Lightning too, its `lightning=` parameter carries the BOLT11 (a unified QR any wallet pays either way). A Lightning-only invoice: `lightning:<BOLT11>`. */
            qr_uri: string;
            /**
             * Format: uri
             * @description Block-explorer link for the receive address.
             */
            verify_url: string;
            /** @description Hosted payment page; present when hosted checkout is enabled. */
            checkout_url?: string;
        } | {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @constant */
            asset: "USDC";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description The USD amount requested. */
            amount_usd: number;
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /** @description EIP-681 URI: ethereum:<token>@<chain id>/transfer?address=<recipient>&uint256=<units>. */
            qr_uri: string;
            /** @description Derivation path of the address under the merchant account xpub. */
            derivation_path: string;
            /**
             * Format: uri
             * @description Block-explorer link for the receive address.
             */
            verify_url: string;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
            /** @description Hosted payment page; present when hosted checkout is enabled. */
            checkout_url?: string;
        } | {
            invoice_id: string;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @enum {string} */
            asset: "USDC" | "USDT";
            /** @constant */
            mode: "fixed-address";
            /** @description Encoded in the low decimals of the amount; the payer must send the exact amount. */
            nonce: number;
            /** @description The ERC-20 contract the payer must send. */
            token_address: string;
            /** @description The merchant's fixed receive address, shared by all fixed-address invoices. */
            receive_address: string;
            /** @description The USD amount requested. */
            amount_usd: number;
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            status: components["schemas"]["InvoiceStatus"];
            /** Format: date-time */
            expires_at: string;
            /** @description EIP-681 URI with the exact amount in base units. */
            qr_uri: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
            /** @description Hosted payment page; present when hosted checkout is enabled. */
            checkout_url?: string;
        };
        /** @description GET /api/v1/invoice/{id}: the stored invoice plus checkout_url, as the create answer carried it. */
        CloudStoredInvoice: {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @constant */
            chain: "btc";
            /** @constant */
            asset: "BTC";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description Exact decimal BTC amount, e.g. "0.00001000". */
            amount_btc: string;
            /** @description The amount in satoshis. */
            amount_sats: number;
            /**
             * @description Bitcoin network of the address, from the merchant key (or BTC_NETWORK).
             * @enum {string}
             */
            network: "mainnet" | "testnet" | "signet" | "regtest";
            /** @description The memo given at creation, if any. */
            memo: string | null;
            /** @description BOLT11 invoice from the merchant's own Lightning wallet for exactly the amount, expiring with the invoice; null when the invoice is on-chain only. Absent only from services released before Lightning. A Lightning-only invoice has no address: its `receive_address` repeats this BOLT11 and `child_index` is null. */
            lightning_invoice?: string | null;
            /** @description Payment hash of `lightning_invoice` (hex); a settlement counts only with a preimage that hashes to it. Null when on-chain only. */
            payment_hash?: string | null;
            /** @description How the invoice was completed: `onchain` or `lightning`; null until confirmed. */
            payment_method?: components["schemas"]["BtcPaymentMethod"] | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
            /** @description Hosted payment page; present when hosted checkout is enabled. */
            checkout_url?: string;
        } | {
            /** @description Identifier returned at creation. */
            invoice_id: string;
            merchant_id: string;
            /** @enum {string} */
            chain: "base" | "eth" | "polygon" | "arbitrum";
            /** @enum {string} */
            asset: "USDC" | "USDT";
            /** @description The on-chain address the payer sends to. */
            receive_address: string;
            /** @description BIP-32 child index of an xpub-derived address; null for fixed-address invoices. */
            child_index: number | null;
            status: components["schemas"]["InvoiceStatus"];
            /** @description The transaction that completed the payment; set on confirmation. */
            tx_hash: string | null;
            /** @description Set on confirmation. */
            paid_at: string | null;
            /** @description How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it. */
            verification?: components["schemas"]["Verification"] | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The order reference given at creation; null when none. Absent only from services released before it. */
            order_id?: string | null;
            /** @description The metadata given at creation (flat, string values); null when none. Absent only from services released before it. */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The return link given at creation; null when none. Absent only from services released before it. */
            redirect_url?: string | null;
            /** @description The fiat price the invoice was created with (decimal text in `price_currency`); null when it was priced in its asset. Absent only from listeners released before prices in a fiat currency. */
            price_amount?: string | null;
            /** @description ISO 4217 code of `price_amount`; null when priced in the asset. */
            price_currency?: components["schemas"]["PriceCurrency"] | null;
            /** @description Price currency per one unit of the asset (decimal text), fixed at creation: the median of the rate sources' quotes. Null when priced in the asset, or when a USD-pegged token was priced in USD (1:1, no rate). */
            rate?: string | null;
            /** @description The rate sources whose quotes made `rate`; null when no rate was taken. */
            rate_sources?: string[] | null;
            /** @description When the rate was taken; null when no rate was taken. */
            rate_at?: string | null;
            /** @description The USD amount requested. */
            amount_usd: number;
            /** @description Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals. */
            amount_token: string;
            /** @description The same amount in the token's 6-decimal base units. */
            amount_token_units: number;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token`. The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.
             */
            amount_usdc: string;
            /**
             * @deprecated
             * @description Deprecated: use `amount_token_units`. The same as `amount_token_units`, also for USDT.
             */
            amount_usdc_units: number;
            /**
             * @description Present only for fixed-address invoices.
             * @constant
             */
            mode?: "fixed-address";
            /** @description Fixed-address only: the nonce encoded in the low decimals of the amount. */
            nonce?: number;
            /** @description Fixed-address only: the ERC-20 contract the payer must send. */
            token_address?: string;
            /** @description The memo given at creation, shown on the checkout page; null when none. Absent only from services released before it. */
            memo?: string | null;
            /** @description x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up. */
            x402_url: string | null;
            /** @description Hosted payment page; present when hosted checkout is enabled. */
            checkout_url?: string;
        };
        /** @description GET /api/v1/health. */
        CloudHealth: {
            /** @description True when the database answers and no chain watcher of this instance has a problem. */
            ok: boolean;
            service: string;
            /** Format: date-time */
            ts: string;
            /** @description Per chain source URL this instance watches (shared by all merchants): requests made, 429s received, when the next request is allowed. */
            chain_sources?: components["schemas"]["ChainSourceBudget"][];
            /** @description The database while it cannot be used (`component: database`), and chain watchers stalled or failing for several poll intervals, per chain and kind, with how many merchants; empty when none (an instance that is not the elected watcher has no watcher problems). */
            problems?: components["schemas"]["WatcherProblem"][];
            /** @description The exchange rate sources fiat prices are converted with: whether each one's last quote counted, was an outlier, garbage or missing. A source named here is outvoted, never believed alone; `ok` does not change. */
            rate_sources?: components["schemas"]["RateSourceHealth"][];
            /** @description Present when some EVM chain takes x402 payments. */
            x402?: components["schemas"]["PaymentSettlementHealth"];
        };
        PaymentRequirements: {
            /**
             * @description `exact`: an EIP-3009 `transferWithAuthorization` of exactly `amount`.
             * @constant
             */
            scheme: "exact";
            /** @description CAIP-2 chain id, e.g. `eip155:8453` (Base). */
            network: string;
            /** @description The amount still due, in the token's base units (6 decimals for USDC). */
            amount: string;
            /** @description The token contract. */
            asset: string;
            /** @description The invoice's receive address. */
            payTo: string;
            /** @description How long the signed authorization may stay valid: `validBefore` at most this many seconds (plus 30 s of clock skew) from now, and never past the invoice's expiry; longer is refused. */
            maxTimeoutSeconds: number;
            /** @description The token's EIP-712 domain (USDC: `USD Coin`, `2`) and the authorization kind accepted. */
            extra: {
                name: string;
                version: string;
                /**
                 * @description The one authorization kind accepted: an EIP-3009 `authorization` with its `signature`; a payload carrying any other (`permit2Authorization`) is refused (`unsupported_asset_transfer_method`). Absent from listeners before it was stated: the same.
                 * @constant
                 */
                assetTransferMethod?: "eip3009";
            };
        };
        /** @description x402 v2 payment requirements: the JSON body of a 402 answer and, base64-encoded, its PAYMENT-REQUIRED header. */
        PaymentRequired: {
            /** @constant */
            x402Version: 2;
            /** @description Why the last payment was refused (x402 reason). */
            error?: string;
            resource: {
                url: string;
                description?: string;
                mimeType?: string;
            };
            /** @description One entry: the EIP-3009 `exact` offer. */
            accepts: components["schemas"]["PaymentRequirements"][];
        };
        PaymentSettlementChainHealth: {
            /**
             * @description `settler`: the service submits with X402_SETTLER_KEY; `facilitator`: an x402 facilitator (X402_FACILITATOR_URL) does.
             * @enum {string}
             */
            settlement: "settler" | "facilitator";
            /** @description The settler key's address (it pays gas only); null with a facilitator. */
            settler_address: string | null;
            /** @description The settler's native balance, in wei; null with a facilitator or when the node does not answer. */
            settler_balance_wei: string | null;
            /** @description Gas units the settler spent on the chain in the last hour (reverted transactions too), against X402_SETTLER_GAS_BUDGET; null with a facilitator. Absent from older services. */
            settler_gas_last_hour?: string | null;
            /** @description Why x402 payments on this chain may fail: settling is paused (the gas budget of the hour is spent), the settler runs low on gas, or its node does not answer. */
            warning: string | null;
        };
        /** @description x402 payments: settlement per chain and settlements reported but never seen. */
        PaymentSettlementHealth: {
            /** @description Per EVM chain taking x402 payments. */
            chains: {
                [key: string]: components["schemas"]["PaymentSettlementChainHealth"];
            };
            /** @description x402 settlements a settler or facilitator reported that the chain never showed (their invoices stay pending): check the facilitator. */
            unseen_settlements: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateInvoiceRequest"];
            };
        };
        responses: {
            /** @description The invoice, in the Bitcoin or EVM shape. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedInvoice"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `invalid_amount`: `amount_sats` is missing or not a positive integer (btc), or `amount_usd` is missing or not a positive number (base); or the body sends both or neither of the amount field and `price_amount` with `price_currency`, one of the pair without the other, a currency not accepted, or a price with more decimals than its currency has (none for JPY).
             *
             *     `unsupported_chain`: `chain` is not one the API knows (`btc`, `base`, `eth`, `polygon` or `arbitrum`).
             *
             *     `chain_disabled`: Bitcoin is not configured for this merchant (no `MERCHANT_BTC_XPUB`). Deprecated for branching: every chain's "not configured" answer also carries `condition: "chain_not_configured"`; branch on that (this code stays, as specified).
             *
             *     `base_disabled`: The EVM chain asked for (`base`, `eth`, `polygon` or `arbitrum`) is not configured for this merchant; every EVM chain answers this code. Deprecated for branching: every chain's "not configured" answer also carries `condition: "chain_not_configured"`; branch on that (this code stays, as specified).
             *
             *     `asset_disabled`: The token is not enabled (self-hosted: add it to `MERCHANT_EVM_TOKENS`).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `create_failed`: The invoice could not be created (storage failure); nothing was stored. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `capacity`: Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile.
             *
             *     `rate_unavailable`: An invoice priced with `price_amount` could not be converted: fewer than `RATE_MIN_SOURCES` rate sources gave a fresh quote within `RATE_MAX_SPREAD` of their median. Nothing was stored; retry after `Retry-After` seconds. Invoices in the asset's own amount field still work.
             *
             *     `lightning_unavailable`: An invoice that asked for Lightning only (`payment_methods: ["lightning"]`) could not get a BOLT11 invoice: the merchant's wallet did not answer over Nostr Wallet Connect in time, answered one that failed the checks, or its connection has come to allow spending or lost a receiving method (the message says what to change in the wallet). Nothing was stored; retry after `Retry-After` seconds, or allow `onchain`.
             *
             *     `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stored invoice. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredInvoice"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listInvoices: {
        parameters: {
            query?: {
                /** @description Page size: default 25; any other number is clamped to 1-100 (not refused), text that is not a whole number reads as the default. Ignored by a CSV export, which has every matching invoice. */
                limit?: number;
                /** @description The `next_cursor` of the previous page: the page after it. Opaque; one this server did not issue is refused (`bad_query`). */
                cursor?: string;
                /** @description Only invoices with this stored status. */
                status?: "pending" | "partial" | "confirmed" | "expired" | "failed";
                /** @description Only invoices on this chain. */
                chain?: "btc" | "base" | "eth" | "polygon" | "arbitrum";
                /** @description Only invoices in this asset (BTC, USDC, USDT; any case). */
                asset?: string;
                /** @description Only the invoices of this order reference (the shop's `order_id`, exact; several invoices may share one). */
                order_id?: string;
                /** @description Search: the invoices whose id or order id is exactly this, or whose receive address is this in any case. */
                q?: string;
                /** @description Only invoices created at or after this instant (inclusive): an ISO 8601 date-time with its zone, or a date (00:00 UTC). */
                created_from?: string;
                /** @description Only invoices created before this instant (exclusive), written as `created_from`. */
                created_to?: string;
                /** @description `csv`: the whole filtered list as CSV (as `Accept: text/csv`); `json` (default): one page. Wins over `Accept`. */
                format?: "json" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, most recent first, and `next_cursor`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceList"];
                    "text/csv": string;
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `bad_query`: Invoice lists: a query parameter is unknown or given twice, or its value is malformed (a `status`, `chain`, `asset` or `format` not among those listed, a `created_from`/`created_to` that is not an ISO 8601 date-time or date, a text over 200 characters, a `cursor` this server did not issue). The message names the parameter.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getX402: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Paid: `PAYMENT-RESPONSE` (base64 JSON: success, transaction, network, payer) and the invoice, still pending until the watcher confirms the transfer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredInvoice"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description Payment required: the requirements (also in `PAYMENT-REQUIRED`).
             *
             *     `invalid_payment`: x402: `PAYMENT-SIGNATURE` is malformed (base64, JSON) or does not pay this invoice exactly (version, scheme, network, token, recipient, value, validity window, signature, a nonce already used), or the settler found it invalid. `reason` holds the x402 reason; `PAYMENT-REQUIRED` carries the requirements again. Nothing was sent.
             */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["PaymentRequired"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `payment_in_progress`: x402: another payer's authorization is being settled for this invoice (one payer at a time), or a settler reported a transaction the chain does not show. Nothing was sent for this request.
             *
             *     `invoice_paid`: x402: the invoice is paid, or a payment covering it is confirming; its `x402_url` is null.
             *
             *     `x402_unavailable`: x402: this invoice cannot be paid with x402 (Bitcoin, USDT, or no settlement set up for its chain: `X402_SETTLER_KEY` or `X402_FACILITATOR_URL`); its `x402_url` is null.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `invoice_ended`: x402: the invoice expired or failed; its `x402_url` is null. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `settlement_failed`: x402: the settlement failed (reverted), or the facilitator reported a transaction the chain does not show within the wait; the invoice stays pending and /health reports it. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `settlement_unavailable`: x402: the facilitator or the chain node did not answer in time, or cannot be reached; `Retry-After` says when to retry. Nothing was settled.
             *
             *     `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCheckoutView: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkout view, in the Bitcoin or EVM shape. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutView"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCheckoutEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `event: view` messages whose data is the checkout view; `event: reconnect` when the stream reached its lifetime. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `too_many_streams`: Checkout event stream refused: this client address has `CHECKOUT_STREAMS_PER_CLIENT` streams open already (default 20); on Cloud also, the merchant of the invoice has as many open as its plan allows (`CLOUD_CHECKOUT_STREAMS_PER_PLAN`), or the share of the server for Free plans is taken (`CLOUD_FAIR_SHARE_RESERVE`). Poll the checkout view instead; `Retry-After` says when to try a stream again. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `capacity`: Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile.
             *
             *     `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getCheckoutPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No such invoice: an HTML page saying so. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The invoice could not be read: an HTML page asking to reload. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Health object. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `internal_error`: Any other unexpected failure; the response never carries internals. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getLlmsTxt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown text. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format 0.0.4 (`Content-Type: text/plain; version=0.0.4`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    mcpGet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-sent events, open until the session ends. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.
             *
             *     `origin_not_allowed`: MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    mcpPost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer to a request, as server-sent events: the request's progress notifications, then its JSON-RPC response. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description A notification or a response from the client was accepted; no body. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.
             *
             *     `origin_not_allowed`: MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `too_many_sessions`: MCP `initialize` (2025-era session) or `subscriptions/listen` (2026-07-28 stream): this merchant (Cloud) or credential (listener) already holds its most open sessions or listen streams (`MCP_MAX_SESSIONS_PER_OWNER`, default 100, each counted apart), or starts sessions faster than `MCP_INITIALIZE_RATE_LIMIT` allows (per owner and per client address). On Cloud also: the plan of the merchant allows no more (`CLOUD_MCP_SESSIONS_PER_PLAN`), or the share of the server for Free plans is taken (`CLOUD_FAIR_SHARE_RESERVE` keeps the rest for paid plans); the message names the cap. `Retry-After` says how many seconds to wait; end sessions (DELETE) and streams you no longer use. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `capacity`: Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    mcpDelete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is closed; no body. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.
             *
             *     `origin_not_allowed`: MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudSignup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignupRequest"];
            };
        };
        responses: {
            /** @description The account id and its API key. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignupResponse"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `invalid_email`: Cloud signup: `email` is missing or not an email address.
             *
             *     `invalid_shop_name`: Cloud signup: `shop_name` is missing or not 2-80 characters.
             *
             *     `no_receive_method`: Cloud signup: no receive method was given (`receive_methods`, or `btc_xpub`, `base_xpub`, `base_address`).
             *
             *     `private_key_rejected`: Cloud signup: a field holds an extended PRIVATE key; it is neither stored nor logged. Send the public key (xpub).
             *
             *     `invalid_xpub`: Cloud signup: `btc_xpub` (BIP-84 account key), `base_xpub` or a `receive_methods` entry's `xpub` (EVM account key at m/44'/60'/0') is not valid, or a Bitcoin entry has none.
             *
             *     `invalid_address`: Cloud signup: `base_address` or a `receive_methods` entry's `address` is not an EIP-55 checksummed 0x address, or is given for Bitcoin.
             *
             *     `invalid_webhook_url`: Cloud: the webhook URL is not https on the default port, or its host does not resolve only to public addresses.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `email_taken`: Cloud signup: an account with this email exists. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No secrets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudCreateKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateKeyRequest"];
            };
        };
        responses: {
            /** @description The new key, shown once. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedKey"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `invalid_key_request`: Cloud POST /api/v1/keys: `label` is not 1-60 characters without control characters, or `scopes` is not a non-empty list of `invoices:read` / `invoices:write`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudListInvoices: {
        parameters: {
            query?: {
                /** @description Page size: default 25; any other number is clamped to 1-100 (not refused), text that is not a whole number reads as the default. Ignored by a CSV export, which has every matching invoice. */
                limit?: number;
                /** @description The `next_cursor` of the previous page: the page after it. Opaque; one this server did not issue is refused (`bad_query`). */
                cursor?: string;
                /** @description Only invoices with this stored status. */
                status?: "pending" | "partial" | "confirmed" | "expired" | "failed";
                /** @description Only invoices on this chain. */
                chain?: "btc" | "base" | "eth" | "polygon" | "arbitrum";
                /** @description Only invoices in this asset (BTC, USDC, USDT; any case). */
                asset?: string;
                /** @description Only the invoices of this order reference (the shop's `order_id`, exact; several invoices may share one). */
                order_id?: string;
                /** @description Search: the invoices whose id or order id is exactly this, or whose receive address is this in any case. */
                q?: string;
                /** @description Only invoices created at or after this instant (inclusive): an ISO 8601 date-time with its zone, or a date (00:00 UTC). */
                created_from?: string;
                /** @description Only invoices created before this instant (exclusive), written as `created_from`. */
                created_to?: string;
                /** @description `csv`: the whole filtered list as CSV (as `Accept: text/csv`); `json` (default): one page. Wins over `Accept`. */
                format?: "json" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page, most recent first, and `next_cursor`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceList"];
                    "text/csv": string;
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `bad_query`: Invoice lists: a query parameter is unknown or given twice, or its value is malformed (a `status`, `chain`, `asset` or `format` not among those listed, a `created_from`/`created_to` that is not an ISO 8601 date-time or date, a text over 200 characters, a `cursor` this server did not issue). The message names the parameter.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudSetWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookSettingRequest"];
            };
        };
        responses: {
            /** @description The saved URL and the new secret (shown once). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSettingResponse"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `invalid_webhook_url`: Cloud: the webhook URL is not https on the default port, or its host does not resolve only to public addresses.
             *
             *     `unknown_webhook_event`: Cloud: `webhook_events` is not a list of opt-in event names (`invoice.payment_seen`, `invoice.partial`, `invoice.expired`); nothing was saved.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudSetLightning: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LightningSettingRequest"];
            };
        };
        responses: {
            /** @description The saved connection, shortened; null when disconnected. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LightningSettingResponse"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `invalid_lightning_connection`: A Lightning connection (`nwc_url`) that cannot be used: not a `nostr+walletconnect://` URI with a wallet key, a `wss://` relay and a secret; or one the wallet lets spend (`pay_invoice`…), or that lacks `make_invoice` or `lookup_invoice`, or whose wallet is on a network the service does not serve. The message says what to change in the wallet. Nothing was saved.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             *
             *     `lightning_unavailable`: An invoice that asked for Lightning only (`payment_methods: ["lightning"]`) could not get a BOLT11 invoice: the merchant's wallet did not answer over Nostr Wallet Connect in time, answered one that failed the checks, or its connection has come to allow spending or lost a receiving method (the message says what to change in the wallet). Nothing was stored; retry after `Retry-After` seconds, or allow `onchain`.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudPlans: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Plans, payment methods, transaction fee (0). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlanCatalogue"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudBillingCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BillingCheckoutRequest"];
            };
        };
        responses: {
            /** @description Where to pay. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillingCheckoutResponse"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `unknown_plan`: Cloud billing: `plan` is not `starter` or `pro`, or `method` is not `crypto` or `card`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `method_unavailable`: Cloud billing: this payment method is not available on this service. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `card_provider_error`: Cloud billing: the card processor failed; retry later or pay with crypto. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudCreateInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateInvoiceRequest"];
            };
        };
        responses: {
            /** @description The invoice plus checkout_url when hosted checkout is enabled. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudCreatedInvoice"];
                };
            };
            /**
             * @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             *
             *     `invalid_amount`: `amount_sats` is missing or not a positive integer (btc), or `amount_usd` is missing or not a positive number (base); or the body sends both or neither of the amount field and `price_amount` with `price_currency`, one of the pair without the other, a currency not accepted, or a price with more decimals than its currency has (none for JPY).
             *
             *     `unsupported_chain`: `chain` is not one the API knows (`btc`, `base`, `eth`, `polygon` or `arbitrum`).
             *
             *     `chain_disabled`: Bitcoin is not configured for this merchant (no `MERCHANT_BTC_XPUB`). Deprecated for branching: every chain's "not configured" answer also carries `condition: "chain_not_configured"`; branch on that (this code stays, as specified).
             *
             *     `base_disabled`: The EVM chain asked for (`base`, `eth`, `polygon` or `arbitrum`) is not configured for this merchant; every EVM chain answers this code. Deprecated for branching: every chain's "not configured" answer also carries `condition: "chain_not_configured"`; branch on that (this code stays, as specified).
             *
             *     `asset_disabled`: The token is not enabled (self-hosted: add it to `MERCHANT_EVM_TOKENS`).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `plan_limit_reached`: Cloud only: the monthly invoice cap of the plan is reached; `error` adds `plan`, `limit` and `used`. */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `create_failed`: The invoice could not be created (storage failure); nothing was stored. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             *
             *     `capacity`: Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile.
             *
             *     `rate_unavailable`: An invoice priced with `price_amount` could not be converted: fewer than `RATE_MIN_SOURCES` rate sources gave a fresh quote within `RATE_MAX_SPREAD` of their median. Nothing was stored; retry after `Retry-After` seconds. Invoices in the asset's own amount field still work.
             *
             *     `lightning_unavailable`: An invoice that asked for Lightning only (`payment_methods: ["lightning"]`) could not get a BOLT11 invoice: the merchant's wallet did not answer over Nostr Wallet Connect in time, answered one that failed the checks, or its connection has come to allow spending or lost a receiving method (the message says what to change in the wallet). Nothing was stored; retry after `Retry-After` seconds, or allow `onchain`.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudGetInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stored invoice, with checkout_url when hosted checkout is enabled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudStoredInvoice"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudX402: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Paid: `PAYMENT-RESPONSE` (base64 JSON: success, transaction, network, payer) and the invoice, still pending until the watcher confirms the transfer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredInvoice"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description Payment required: the requirements (also in `PAYMENT-REQUIRED`).
             *
             *     `invalid_payment`: x402: `PAYMENT-SIGNATURE` is malformed (base64, JSON) or does not pay this invoice exactly (version, scheme, network, token, recipient, value, validity window, signature, a nonce already used), or the settler found it invalid. `reason` holds the x402 reason; `PAYMENT-REQUIRED` carries the requirements again. Nothing was sent.
             */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["PaymentRequired"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `payment_in_progress`: x402: another payer's authorization is being settled for this invoice (one payer at a time), or a settler reported a transaction the chain does not show. Nothing was sent for this request.
             *
             *     `invoice_paid`: x402: the invoice is paid, or a payment covering it is confirming; its `x402_url` is null.
             *
             *     `x402_unavailable`: x402: this invoice cannot be paid with x402 (Bitcoin, USDT, or no settlement set up for its chain: `X402_SETTLER_KEY` or `X402_FACILITATOR_URL`); its `x402_url` is null.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `invoice_ended`: x402: the invoice expired or failed; its `x402_url` is null. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice's merchant's share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans' share); the message names the limit. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `lookup_failed`: The invoice could not be read (storage failure). */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `settlement_failed`: x402: the settlement failed (reverted), or the facilitator reported a transaction the chain does not show within the wait; the invoice stays pending and /health reports it. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `settlement_unavailable`: x402: the facilitator or the chain node did not answer in time, or cannot be reached; `Retry-After` says when to retry. Nothing was settled.
             *
             *     `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudCheckoutView: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Display-only fields. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutView"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudCheckoutEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `event: view` messages whose data is the display view; `event: reconnect` when the stream reached its lifetime. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `too_many_streams`: Checkout event stream refused: this client address has `CHECKOUT_STREAMS_PER_CLIENT` streams open already (default 20); on Cloud also, the merchant of the invoice has as many open as its plan allows (`CLOUD_CHECKOUT_STREAMS_PER_PLAN`), or the share of the server for Free plans is taken (`CLOUD_FAIR_SHARE_RESERVE`). Poll the checkout view instead; `Retry-After` says when to try a stream again. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `capacity`: Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile.
             *
             *     `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description {ok, service, ts}. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudHealth"];
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudLlmsTxt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown text. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudMcpGet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-sent events, open until the session ends. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.
             *
             *     `origin_not_allowed`: MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudMcpPost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer to a request, as server-sent events: the request's progress notifications, then its JSON-RPC response. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description A notification or a response from the client was accepted; no body. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.
             *
             *     `origin_not_allowed`: MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `too_many_sessions`: MCP `initialize` (2025-era session) or `subscriptions/listen` (2026-07-28 stream): this merchant (Cloud) or credential (listener) already holds its most open sessions or listen streams (`MCP_MAX_SESSIONS_PER_OWNER`, default 100, each counted apart), or starts sessions faster than `MCP_INITIALIZE_RATE_LIMIT` allows (per owner and per client address). On Cloud also: the plan of the merchant allows no more (`CLOUD_MCP_SESSIONS_PER_PLAN`), or the share of the server for Free plans is taken (`CLOUD_FAIR_SHARE_RESERVE` keeps the rest for paid plans); the message names the cap. `Retry-After` says how many seconds to wait; end sessions (DELETE) and streams you no longer use. */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.
             *
             *     `capacity`: Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile.
             */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudMcpDelete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is closed; no body. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `insufficient_scope`: The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.
             *
             *     `origin_not_allowed`: MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `database_unavailable`: The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    oauthProtectedResource: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Protected resource metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    oauthProtectedResourceMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Protected resource metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    cloudOauthProtectedResourceMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Protected resource metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    oauthAuthorizationServer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Authorization server metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    oauthAuthorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the consent page, or back to the client (`Location`); the body is a short note with the link. */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /**
             * @description Error page, no redirect: a malformed request, an unknown client, an unregistered redirect_uri.
             *
             *     `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                    "text/html": string;
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error page (`temporarily_unavailable`), no redirect: too many authorization requests from this address; `Retry-After` says when to retry. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error page, no redirect, with another status oidc-provider picks by the error (500 `server_error` when its storage fails). */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    oauthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description access_token, token_type, expires_in, refresh_token, scope. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /**
             * @description An OAuth error: `invalid_request`, `invalid_grant` (an unknown, used or expired code or refresh token, a wrong code_verifier, a grant whose key is revoked), `invalid_target`.
             *
             *     `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | {
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `too_many_requests`: too many token requests from this address; `Retry-After` says when to retry. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    oauthRegister: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registered client, with its client_id. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /**
             * @description An OAuth error: `invalid_redirect_uri`, `invalid_client_metadata`.
             *
             *     `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | {
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `too_many_requests`: too many registrations from this address; `Retry-After` says when to retry. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    oauthRevoke: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked (or already unknown); no body. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description An OAuth error: `invalid_request` (no client_id).
             *
             *     `bad_body`: The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud's invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | {
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description `not_found`: No such invoice or route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `headers_too_large`: The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed. */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    webhook_invoice_confirmed: {
        parameters: {
            query?: never;
            header: {
                /** @description Legacy: hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)); signs neither the timestamp nor the id, so verify webhook-signature instead. */
                "X-Service-Signature": string;
                /** @description Legacy: Unix epoch milliseconds of this attempt; not signed. */
                "X-Service-Timestamp": string;
                /** @description Legacy: the event id; not signed, never trust it alone (use webhook-id or the body's event_id). */
                "X-Service-Event-Id": string;
                /** @description Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send. */
                "X-Service-Attempt": string;
                /** @description Standard Webhooks: the event id, signed, the same on every retry and equal to the body's event_id: de-duplicate by it. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix epoch seconds of this attempt; signed. Reject if more than 5 minutes from your clock. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{raw body}`)); the key is the base64-decoded part after `whsec_`, or for a secret not of that form its own UTF-8 bytes. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvoiceConfirmedEvent"];
            };
        };
        responses: {
            /**
             * @description What `verifyWebhook` and the `webhook-receiver` tool answer to a delivery they reject (any non-2xx means a retry):
             *
             *     `missing_header`: Webhook receiver: a header the delivery needs is absent (`webhook-id`, `webhook-timestamp`, `webhook-signature`; with the legacy signature allowed and sent alone, `X-Service-Signature`, `X-Service-Timestamp` and `X-Service-Attempt`).
             *
             *     `standard_signature_required`: Webhook receiver: the delivery carries only the legacy `X-Service-Signature`, which does not sign the timestamp or the id; the receiver requires `webhook-signature` unless the legacy one is explicitly allowed (`allowLegacySignature`, `--allow-legacy-signature`).
             *
             *     `unsigned_event_id`: Webhook receiver: a delivery signed only with the allowed legacy `X-Service-Signature` whose signed body has no `event_id`; the unsigned `X-Service-Event-Id` header is never taken as the id.
             *
             *     `invalid_signature`: Webhook receiver: no `v1` entry of `webhook-signature` matches the id, timestamp, raw body and secret (or, where the legacy signature is checked, `X-Service-Signature` is not hex(HMAC-SHA256(secret, raw body bytes))).
             *
             *     `invalid_timestamp`: Webhook receiver: `webhook-timestamp` (or the legacy `X-Service-Timestamp` or `X-Service-Attempt`) is not an integer.
             *
             *     `timestamp_too_old`: Webhook receiver: the signed `webhook-timestamp` (seconds; the legacy `X-Service-Timestamp`, milliseconds) is more than five minutes behind the receiver clock.
             *
             *     `timestamp_too_new`: Webhook receiver: the signed `webhook-timestamp` (or the legacy `X-Service-Timestamp`) is more than five minutes ahead of the receiver clock.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Any 2xx within 10 seconds acknowledges the event. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer within 10 s) schedules a retry: 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 12 h. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_payment_orphan: {
        parameters: {
            query?: never;
            header: {
                /** @description Legacy: hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)); signs neither the timestamp nor the id, so verify webhook-signature instead. */
                "X-Service-Signature": string;
                /** @description Legacy: Unix epoch milliseconds of this attempt; not signed. */
                "X-Service-Timestamp": string;
                /** @description Legacy: the event id; not signed, never trust it alone (use webhook-id or the body's event_id). */
                "X-Service-Event-Id": string;
                /** @description Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send. */
                "X-Service-Attempt": string;
                /** @description Standard Webhooks: the event id, signed, the same on every retry and equal to the body's event_id: de-duplicate by it. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix epoch seconds of this attempt; signed. Reject if more than 5 minutes from your clock. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{raw body}`)); the key is the base64-decoded part after `whsec_`, or for a secret not of that form its own UTF-8 bytes. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentOrphanEvent"];
            };
        };
        responses: {
            /**
             * @description What `verifyWebhook` and the `webhook-receiver` tool answer to a delivery they reject (any non-2xx means a retry):
             *
             *     `missing_header`: Webhook receiver: a header the delivery needs is absent (`webhook-id`, `webhook-timestamp`, `webhook-signature`; with the legacy signature allowed and sent alone, `X-Service-Signature`, `X-Service-Timestamp` and `X-Service-Attempt`).
             *
             *     `standard_signature_required`: Webhook receiver: the delivery carries only the legacy `X-Service-Signature`, which does not sign the timestamp or the id; the receiver requires `webhook-signature` unless the legacy one is explicitly allowed (`allowLegacySignature`, `--allow-legacy-signature`).
             *
             *     `unsigned_event_id`: Webhook receiver: a delivery signed only with the allowed legacy `X-Service-Signature` whose signed body has no `event_id`; the unsigned `X-Service-Event-Id` header is never taken as the id.
             *
             *     `invalid_signature`: Webhook receiver: no `v1` entry of `webhook-signature` matches the id, timestamp, raw body and secret (or, where the legacy signature is checked, `X-Service-Signature` is not hex(HMAC-SHA256(secret, raw body bytes))).
             *
             *     `invalid_timestamp`: Webhook receiver: `webhook-timestamp` (or the legacy `X-Service-Timestamp` or `X-Service-Attempt`) is not an integer.
             *
             *     `timestamp_too_old`: Webhook receiver: the signed `webhook-timestamp` (seconds; the legacy `X-Service-Timestamp`, milliseconds) is more than five minutes behind the receiver clock.
             *
             *     `timestamp_too_new`: Webhook receiver: the signed `webhook-timestamp` (or the legacy `X-Service-Timestamp`) is more than five minutes ahead of the receiver clock.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Any 2xx within 10 seconds acknowledges the event. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer within 10 s) schedules a retry: 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 12 h. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_invoice_payment_seen: {
        parameters: {
            query?: never;
            header: {
                /** @description Legacy: hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)); signs neither the timestamp nor the id, so verify webhook-signature instead. */
                "X-Service-Signature": string;
                /** @description Legacy: Unix epoch milliseconds of this attempt; not signed. */
                "X-Service-Timestamp": string;
                /** @description Legacy: the event id; not signed, never trust it alone (use webhook-id or the body's event_id). */
                "X-Service-Event-Id": string;
                /** @description Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send. */
                "X-Service-Attempt": string;
                /** @description Standard Webhooks: the event id, signed, the same on every retry and equal to the body's event_id: de-duplicate by it. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix epoch seconds of this attempt; signed. Reject if more than 5 minutes from your clock. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{raw body}`)); the key is the base64-decoded part after `whsec_`, or for a secret not of that form its own UTF-8 bytes. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvoicePaymentSeenEvent"];
            };
        };
        responses: {
            /**
             * @description What `verifyWebhook` and the `webhook-receiver` tool answer to a delivery they reject (any non-2xx means a retry):
             *
             *     `missing_header`: Webhook receiver: a header the delivery needs is absent (`webhook-id`, `webhook-timestamp`, `webhook-signature`; with the legacy signature allowed and sent alone, `X-Service-Signature`, `X-Service-Timestamp` and `X-Service-Attempt`).
             *
             *     `standard_signature_required`: Webhook receiver: the delivery carries only the legacy `X-Service-Signature`, which does not sign the timestamp or the id; the receiver requires `webhook-signature` unless the legacy one is explicitly allowed (`allowLegacySignature`, `--allow-legacy-signature`).
             *
             *     `unsigned_event_id`: Webhook receiver: a delivery signed only with the allowed legacy `X-Service-Signature` whose signed body has no `event_id`; the unsigned `X-Service-Event-Id` header is never taken as the id.
             *
             *     `invalid_signature`: Webhook receiver: no `v1` entry of `webhook-signature` matches the id, timestamp, raw body and secret (or, where the legacy signature is checked, `X-Service-Signature` is not hex(HMAC-SHA256(secret, raw body bytes))).
             *
             *     `invalid_timestamp`: Webhook receiver: `webhook-timestamp` (or the legacy `X-Service-Timestamp` or `X-Service-Attempt`) is not an integer.
             *
             *     `timestamp_too_old`: Webhook receiver: the signed `webhook-timestamp` (seconds; the legacy `X-Service-Timestamp`, milliseconds) is more than five minutes behind the receiver clock.
             *
             *     `timestamp_too_new`: Webhook receiver: the signed `webhook-timestamp` (or the legacy `X-Service-Timestamp`) is more than five minutes ahead of the receiver clock.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Any 2xx within 10 seconds acknowledges the event. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer within 10 s) schedules a retry: 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 12 h. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_invoice_partial: {
        parameters: {
            query?: never;
            header: {
                /** @description Legacy: hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)); signs neither the timestamp nor the id, so verify webhook-signature instead. */
                "X-Service-Signature": string;
                /** @description Legacy: Unix epoch milliseconds of this attempt; not signed. */
                "X-Service-Timestamp": string;
                /** @description Legacy: the event id; not signed, never trust it alone (use webhook-id or the body's event_id). */
                "X-Service-Event-Id": string;
                /** @description Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send. */
                "X-Service-Attempt": string;
                /** @description Standard Webhooks: the event id, signed, the same on every retry and equal to the body's event_id: de-duplicate by it. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix epoch seconds of this attempt; signed. Reject if more than 5 minutes from your clock. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{raw body}`)); the key is the base64-decoded part after `whsec_`, or for a secret not of that form its own UTF-8 bytes. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvoicePartialEvent"];
            };
        };
        responses: {
            /**
             * @description What `verifyWebhook` and the `webhook-receiver` tool answer to a delivery they reject (any non-2xx means a retry):
             *
             *     `missing_header`: Webhook receiver: a header the delivery needs is absent (`webhook-id`, `webhook-timestamp`, `webhook-signature`; with the legacy signature allowed and sent alone, `X-Service-Signature`, `X-Service-Timestamp` and `X-Service-Attempt`).
             *
             *     `standard_signature_required`: Webhook receiver: the delivery carries only the legacy `X-Service-Signature`, which does not sign the timestamp or the id; the receiver requires `webhook-signature` unless the legacy one is explicitly allowed (`allowLegacySignature`, `--allow-legacy-signature`).
             *
             *     `unsigned_event_id`: Webhook receiver: a delivery signed only with the allowed legacy `X-Service-Signature` whose signed body has no `event_id`; the unsigned `X-Service-Event-Id` header is never taken as the id.
             *
             *     `invalid_signature`: Webhook receiver: no `v1` entry of `webhook-signature` matches the id, timestamp, raw body and secret (or, where the legacy signature is checked, `X-Service-Signature` is not hex(HMAC-SHA256(secret, raw body bytes))).
             *
             *     `invalid_timestamp`: Webhook receiver: `webhook-timestamp` (or the legacy `X-Service-Timestamp` or `X-Service-Attempt`) is not an integer.
             *
             *     `timestamp_too_old`: Webhook receiver: the signed `webhook-timestamp` (seconds; the legacy `X-Service-Timestamp`, milliseconds) is more than five minutes behind the receiver clock.
             *
             *     `timestamp_too_new`: Webhook receiver: the signed `webhook-timestamp` (or the legacy `X-Service-Timestamp`) is more than five minutes ahead of the receiver clock.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Any 2xx within 10 seconds acknowledges the event. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer within 10 s) schedules a retry: 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 12 h. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_invoice_expired: {
        parameters: {
            query?: never;
            header: {
                /** @description Legacy: hex(HMAC-SHA256(key = webhook secret, message = raw body bytes)); signs neither the timestamp nor the id, so verify webhook-signature instead. */
                "X-Service-Signature": string;
                /** @description Legacy: Unix epoch milliseconds of this attempt; not signed. */
                "X-Service-Timestamp": string;
                /** @description Legacy: the event id; not signed, never trust it alone (use webhook-id or the body's event_id). */
                "X-Service-Event-Id": string;
                /** @description Attempt number, 1-based: 1-10 for the automatic schedule, higher for a manual re-send. */
                "X-Service-Attempt": string;
                /** @description Standard Webhooks: the event id, signed, the same on every retry and equal to the body's event_id: de-duplicate by it. */
                "webhook-id": string;
                /** @description Standard Webhooks: Unix epoch seconds of this attempt; signed. Reject if more than 5 minutes from your clock. */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `{webhook-id}.{webhook-timestamp}.{raw body}`)); the key is the base64-decoded part after `whsec_`, or for a secret not of that form its own UTF-8 bytes. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvoiceExpiredEvent"];
            };
        };
        responses: {
            /**
             * @description What `verifyWebhook` and the `webhook-receiver` tool answer to a delivery they reject (any non-2xx means a retry):
             *
             *     `missing_header`: Webhook receiver: a header the delivery needs is absent (`webhook-id`, `webhook-timestamp`, `webhook-signature`; with the legacy signature allowed and sent alone, `X-Service-Signature`, `X-Service-Timestamp` and `X-Service-Attempt`).
             *
             *     `standard_signature_required`: Webhook receiver: the delivery carries only the legacy `X-Service-Signature`, which does not sign the timestamp or the id; the receiver requires `webhook-signature` unless the legacy one is explicitly allowed (`allowLegacySignature`, `--allow-legacy-signature`).
             *
             *     `unsigned_event_id`: Webhook receiver: a delivery signed only with the allowed legacy `X-Service-Signature` whose signed body has no `event_id`; the unsigned `X-Service-Event-Id` header is never taken as the id.
             *
             *     `invalid_signature`: Webhook receiver: no `v1` entry of `webhook-signature` matches the id, timestamp, raw body and secret (or, where the legacy signature is checked, `X-Service-Signature` is not hex(HMAC-SHA256(secret, raw body bytes))).
             *
             *     `invalid_timestamp`: Webhook receiver: `webhook-timestamp` (or the legacy `X-Service-Timestamp` or `X-Service-Attempt`) is not an integer.
             *
             *     `timestamp_too_old`: Webhook receiver: the signed `webhook-timestamp` (seconds; the legacy `X-Service-Timestamp`, milliseconds) is more than five minutes behind the receiver clock.
             *
             *     `timestamp_too_new`: Webhook receiver: the signed `webhook-timestamp` (or the legacy `X-Service-Timestamp`) is more than five minutes ahead of the receiver clock.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Any 2xx within 10 seconds acknowledges the event. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer within 10 s) schedules a retry: 1 s, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 12 h. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
