import * as z from 'zod';

/** Settings as the process environment gives them. */
type SettingsEnv = Readonly<Record<string, string | undefined>>;

/**
 * A whole-number setting from `min` to `max` whose every refusal says so in those words (zod's
 * own would read "Invalid input: expected number, received NaN").
 */
export function wholeNumber(min: number, max: number, note = '') {
  const error = `must be a whole number between ${min} and ${max}${note}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** Settings whose value may hold a secret (a key, a password in a URL): named in a problem, never echoed. */
const SECRET_SETTING = /KEY|SECRET|XPUB|PASSWORD|TOKEN|DATABASE_URL|RPC_URL/;

/** A refusal in plain words: the schema's own where it has one, else zod's turned into a sentence. */
function plainReason(issue: z.core.$ZodIssue): string {
  if (!/^(Invalid|Too (small|big))/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_type':
      return issue.expected === 'number' || issue.expected === 'int' ? 'must be a number' : `must be a ${issue.expected}`;
    case 'too_small':
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      return `must be at most ${issue.maximum}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'must be a URL' : 'is not in the expected format';
    case 'invalid_union':
      return `must be ${issue.errors.map((branch) => (branch[0] ? plainReason(branch[0]).replace(/^must be (one of )?/, '') : '')).join(' or ')}`;
    default:
      return 'is not valid';
  }
}

/** One problem of a setting, named by the setting, with the value given unless it may hold a secret. */
export function describeSettingIssue(issue: z.core.$ZodIssue, env: SettingsEnv): string {
  const name = String(issue.path[0]);
  const value = env[name];
  const got = value === undefined || SECRET_SETTING.test(name) ? '' : `, got "${value}"`;
  return `${name} ${plainReason(issue)}${got}`;
}

/**
 * Parses the settings with `schema`, adding every refusal to `problems`; a refused setting then
 * reads as unset, so the checks that follow still run and all problems are reported together.
 */
export function parseSettings<T extends z.ZodType>(schema: T, env: SettingsEnv, problems: string[]): z.infer<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  problems.push(...parsed.error.issues.map((issue) => describeSettingIssue(issue, env)));
  const refused = Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), undefined]));
  return schema.parse({ ...env, ...refused });
}

export const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** One or more http(s) URLs, comma-separated (BTC_ESPLORA_URL): trailing slashes and duplicates dropped. */
export const httpUrlListSetting = z.preprocess(
  blankToUndefined,
  z
    .string()
    .transform((text) => [...new Set(text.split(',').map((u) => u.trim().replace(/\/+$/, '')).filter(Boolean))])
    .pipe(z.array(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, or several comma-separated' })).min(1, 'must name at least one URL'))
    .optional(),
);
