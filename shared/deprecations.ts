import { signupDeprecations } from './cloud.ts';
import type { Deprecation } from './deprecated.ts';
import { healthDeprecations } from './health.ts';
import { tokenAmountDeprecations } from './invoice.ts';

/** Every deprecated field of the contract: llms.txt and the tests list them from here. */
export const deprecatedFields: readonly Deprecation[] = [tokenAmountDeprecations, healthDeprecations, signupDeprecations].flatMap((group) => Object.values(group));
