import { chainFacts, chainNames, isEvmChain, SignupRequest, type ChainName } from '../../shared/index.ts';

/** One input of the sign-up form. */
export interface SignupField {
  name: string;
  label: string;
  /** `password`: a secret, never written back into a page (a refused form is kept without it). */
  type: 'text' | 'email' | 'url' | 'password';
  required: boolean;
  autocomplete: string;
  hint: string;
}

const xpubFieldOf = (chain: ChainName) => `${chain}_xpub`;
const addressFieldOf = (chain: ChainName) => `${chain}_address`;
/** One EVM account key for every EVM chain the form leaves empty, as the listener's MERCHANT_EVM_XPUB. */
const EVM_ACCOUNT_KEY_FIELD = 'evm_xpub';

const keyField = (name: string, label: string, hint: string): SignupField => ({ name, label, type: 'text', required: false, autocomplete: 'off', hint });
const apiField = (name: 'email' | 'shop_name' | 'webhook_url' | 'lightning_nwc_url', label: string, type: SignupField['type'], required: boolean, autocomplete: string): SignupField => ({
  name,
  label,
  type,
  required,
  autocomplete,
  hint: SignupRequest.shape[name].description ?? '',
});

const evmChains = chainNames.filter(isEvmChain);

/**
 * The receive-method inputs, from the chain registry: an account key for each chain, a fixed address
 * for each EVM chain, and one EVM account key that fills in every EVM chain left empty.
 */
export const receiveMethodFields: readonly SignupField[] = [
  ...chainNames.flatMap((chain) => {
    const { name } = chainFacts[chain];
    if (!isEvmChain(chain)) return [keyField(xpubFieldOf(chain), `${name} account public key`, 'BIP-84 account public key (xpub/zpub, tpub/vpub).')];
    return [
      keyField(xpubFieldOf(chain), `${name} account public key`, `EVM account public key at m/44'/60'/0' for ${name}: a new address per invoice (USDC).`),
      keyField(addressFieldOf(chain), `${name} receive address`, `A fixed EIP-55 checksummed 0x address on ${name} (needed for USDT).`),
    ];
  }),
  ...(evmChains.length > 1
    ? [keyField(EVM_ACCOUNT_KEY_FIELD, 'EVM account key (all EVM chains)', `One EVM account public key at m/44'/60'/0' for every EVM chain (${evmChains.map((c) => chainFacts[c].name).join(', ')}) with no key or address of its own above.`)]
    : []),
];

/** The sign-up form's inputs, in the order shown: who, where payments go, the webhook. */
export const signupFields: readonly SignupField[] = [
  apiField('email', 'Email', 'email', true, 'email'),
  apiField('shop_name', 'Shop name', 'text', true, 'organization'),
  ...receiveMethodFields,
  apiField('lightning_nwc_url', 'Lightning wallet connection (optional)', 'password', false, 'off'),
  apiField('webhook_url', 'Webhook URL (optional)', 'url', false, 'url'),
];
export const signupFieldNames: readonly string[] = signupFields.map((f) => f.name);

/**
 * The sign-up API's body for a submitted form: one `receive_methods` entry per chain with a key or
 * address, so the API's own checks (and messages) judge it. Empty inputs send nothing.
 */
export function signupRequestOfForm(form: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  const value = (name: string) => (form[name] ?? '').trim();
  const evmAccountKey = value(EVM_ACCOUNT_KEY_FIELD);
  const receiveMethods = chainNames.flatMap((chain) => {
    const address = isEvmChain(chain) ? value(addressFieldOf(chain)) : '';
    const ownKey = value(xpubFieldOf(chain));
    const xpub = ownKey || (isEvmChain(chain) && !address ? evmAccountKey : '');
    if (!xpub && !address) return [];
    return [{ chain, ...(xpub ? { xpub } : {}), ...(address ? { address } : {}) }];
  });
  const lightning = value('lightning_nwc_url');
  return { email: form.email ?? '', shop_name: form.shop_name ?? '', webhook_url: form.webhook_url ?? '', receive_methods: receiveMethods, ...(lightning ? { lightning_nwc_url: lightning } : {}) };
}
