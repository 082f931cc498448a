/**
 * Which object keys hold secrets. A key is judged by its words, so `apiKey`, `API_KEY`,
 * `api-key` and `Api_Key` are the same name.
 *
 * Usage counters are protected twice: they are checked first and never judged by the
 * secret rules, and the secret rules themselves are written so no `*tokens*` name can match
 * (they look at the singular word `token` at the end of a name, never at `tokens`).
 * test/redact/keys.test.ts pins both.
 */

/** Numeric usage fields that must reach every event and log line unredacted. */
export const USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'cached_input_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'reasoning_tokens',
  'total_tokens',
  'tokens_used_24h',
  'tokens_remaining_24h',
] as const;

/** The lower-case words of a key: camelCase, snake_case, kebab-case and spaces all split. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** The words run together: `OPENAI_API_KEY` and `openaiApiKey` both give `openaiapikey`. */
export function compactKey(key: string): string {
  return keyWords(key).join('');
}

const USAGE_COMPACT: ReadonlySet<string> = new Set(USAGE_FIELDS.map(compactKey));

export function isUsageKey(key: string): boolean {
  return USAGE_COMPACT.has(compactKey(key));
}

/**
 * A name ending like this holds a secret: `access_token`, `x-api-key`, `client_secret`,
 * `Set-Cookie`, `aws_secret_access_key`. `key` alone is not here: `sort_key`, `cache_key`
 * and `primary_key` name no secret, so only the kinds of key that do are listed.
 */
const SECRET_SUFFIXES = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'authorization',
  'apikey',
  'secretkey',
  'privatekey',
  'accesskey',
  'signingkey',
  'encryptionkey',
  'sessionkey',
  'clientkey',
  'masterkey',
  'authkey',
  'sshkey',
] as const;

/** A name with one of these words anywhere holds a secret: `auth_payload`, `oauth_state`, `password_hash`. */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  'auth',
  'oauth',
  'authentication',
  'password',
  'passwd',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'cookie',
  'apikey',
  'bearer',
  'jwt',
]);

/**
 * Names that are a secret when they hold a string, but in this kernel also name ordinary
 * records: `session: "abc123"` is a session cookie, `session: {id, harness, input_tokens}` is
 * an executor session whose fields are judged one by one.
 */
const SCALAR_SECRET_NAMES: ReadonlySet<string> = new Set(['session']);

/**
 * How a key's value is treated:
 * - `none`: an ordinary field;
 * - `secret`: every string and number below it is replaced (usage counters excepted);
 * - `scalar-secret`: replaced when it is a string or number, judged field by field when it is an object.
 */
export type KeyClass = 'none' | 'secret' | 'scalar-secret';

/** The secret rules alone, without the usage check in front: tests use it to show the rules cannot catch a usage field. */
export function secretKeyRule(key: string): KeyClass {
  const words = keyWords(key);
  const compact = words.join('');
  if (compact === '') return 'none';
  if (SCALAR_SECRET_NAMES.has(compact)) return 'scalar-secret';
  if (words.some((word) => SECRET_WORDS.has(word))) return 'secret';
  if (SECRET_SUFFIXES.some((suffix) => compact.endsWith(suffix))) return 'secret';
  return 'none';
}

/** The classification redact() uses: a usage counter is never a secret, whatever the rules say. */
export function classifyKey(key: string): KeyClass {
  if (isUsageKey(key)) return 'none';
  return secretKeyRule(key);
}
