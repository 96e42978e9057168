/** The network access of everything that calls out (chain sources, webhook targets): injected, so tests and the sandbox give their own. */
export type Fetch = typeof fetch;
