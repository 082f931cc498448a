/**
 * Secrets inside otherwise harmless strings: a pasted `Authorization: Bearer ...` header,
 * an `sk-...` provider key in an error message, `password=...` in a URL or a config dump.
 * Only the secret part is replaced, so the rest of the message stays readable.
 */

export const REDACTED = '[REDACTED]';

interface StringRule {
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
  /**
   * Lower-case text every match must contain: a rule none of whose hints occur in the string
   * is not run (most strings hold none, and the regexes are what scrubbing costs).
   */
  hints: readonly string[];
}

/** True when a candidate key looks random enough to be a credential (letters and digits mixed). */
function looksRandom(text: string): boolean {
  return /\d/.test(text) && /[A-Za-z]/.test(text);
}

/** Secret names as they appear in text: `api_key`, `X-Api-Key`, `access-token`, `password`, `Cookie`... */
const SECRET_NAME =
  '(?:[a-z0-9]+[_-]){0,4}(?:api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|private[_-]?key|password|passwd|secret|token|proxy-authorization|authorization|set-cookie|cookie)';

const RULES: readonly StringRule[] = [
  // Header lines: the whole value goes, whatever scheme it uses, up to the end of the line,
  // also where the line is inside a JSON string (an escaped \n ends it too): otherwise a header
  // quoted in JSON would take the rest of the string with it, and the same text scrubbed before
  // and after it was JSON-encoded (a recording and its replay) would differ.
  {
    pattern: /\b(proxy-authorization|authorization|set-cookie|cookie)(\s*:\s*)(?!\s*\[REDACTED\])(?:(?!\\[nr])[^\r\n])+/gi,
    replace: (_m, name, sep) => `${name}${sep}${REDACTED}`,
    hints: ['authoriz', 'cookie'],
  },
  // Authorization schemes written inline.
  { pattern: /\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, replace: (_m, scheme, space) => `${scheme}${space}${REDACTED}`, hints: ['bearer'] },
  {
    pattern: /\b(Basic)(\s+)([A-Za-z0-9+/]{12,}={0,2})/g,
    replace: (m, scheme, space, value) =>
      /[\d=+/]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)) ? `${scheme}${space}${REDACTED}` : m,
    hints: ['basic'],
  },
  // Provider keys: OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), and the like.
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: (m) => (looksRandom(m.slice(3)) ? REDACTED : m), hints: ['sk-'] },
  { pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, replace: () => REDACTED, hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'] },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: () => REDACTED, hints: ['github_pat_'] },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: () => REDACTED, hints: ['xox'] },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: () => REDACTED, hints: ['akia', 'asia'] },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replace: () => REDACTED, hints: ['aiza'] },
  // Hugging Face (hf_), GitLab (glpat-), npm (npm_), PyPI (pypi-), Stripe (sk_/rk_ live/test),
  // Google OAuth access tokens (ya29.), Groq (gsk_), Replicate (r8_), DigitalOcean (dop_v1_),
  // Shopify (shpat_ and kin), Slack app tokens (xapp-), Slack webhooks, and PEM private keys.
  { pattern: /\bhf_[A-Za-z0-9]{30,}/g, replace: () => REDACTED, hints: ['hf_'] },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, replace: () => REDACTED, hints: ['glpat-'] },
  { pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replace: () => REDACTED, hints: ['npm_'] },
  { pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g, replace: () => REDACTED, hints: ['pypi-age'] },
  { pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g, replace: () => REDACTED, hints: ['_live_', '_test_'] },
  { pattern: /\bya29\.[A-Za-z0-9_-]{20,}/g, replace: () => REDACTED, hints: ['ya29.'] },
  { pattern: /\bgsk_[A-Za-z0-9]{40,}/g, replace: () => REDACTED, hints: ['gsk_'] },
  { pattern: /\br8_[A-Za-z0-9]{30,}/g, replace: () => REDACTED, hints: ['r8_'] },
  { pattern: /\bdop_v1_[a-f0-9]{64}\b/g, replace: () => REDACTED, hints: ['dop_v1_'] },
  { pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g, replace: () => REDACTED, hints: ['shp'] },
  { pattern: /\bxapp-[0-9]-[A-Za-z0-9-]{20,}/g, replace: () => REDACTED, hints: ['xapp-'] },
  { pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g, replace: () => REDACTED, hints: ['hooks.slack.com'] },
  { pattern: /-----BEGIN (?:[A-Z0-9 ]+ )?PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9 ]+ )?PRIVATE KEY-----|$)/g, replace: () => REDACTED, hints: ['private key'] },
  // JSON Web Tokens (header.payload.signature, both first parts base64url JSON).
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: () => REDACTED, hints: ['eyj'] },
  // user:password@ in URLs.
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, replace: (_m, head) => `${head}${REDACTED}@`, hints: ['://'] },
  // key=value and "key": "value" for secret names, in query strings, env dumps and JSON text.
  // A quoted value is replaced up to its closing quote, so `"Basic dXNlcjpwYXNz"` goes whole.
  {
    pattern: new RegExp(`\\b(${SECRET_NAME})(["']?\\s*[:=]\\s*)(["'])(?!\\[REDACTED\\])(?:(?!\\3)[^\\\\\\r\\n]|\\\\.)+\\3`, 'gi'),
    replace: (_m, name, sep, quote) => `${name}${sep}${quote}${REDACTED}${quote}`,
    hints: ['key', 'token', 'secret', 'passw', 'authoriz', 'cookie'],
  },
  {
    pattern: new RegExp(`\\b(${SECRET_NAME})(["']?\\s*[:=]\\s*)(?!["'\\s])(?!\\[REDACTED\\])[^\\s"'&,;}]+`, 'gi'),
    replace: (_m, name, sep) => `${name}${sep}${REDACTED}`,
    hints: ['key', 'token', 'secret', 'passw', 'authoriz', 'cookie'],
  },
];

/** A cheap first look: a string with none of these can hold none of the secrets above. */
const MAYBE_SECRET = /bearer|basic|sk-|gh[pousr]_|github_pat_|xox|xapp-|AKIA|ASIA|AIza|eyJ|hf_|glpat-|npm_|pypi-|_live_|_test_|ya29\.|gsk_|r8_|dop_v1_|shp(?:at|ca|pa|ss)_|hooks\.slack|PRIVATE KEY|:\/\/[^\s/]*:[^\s/]*@|key|token|secret|passw|authoriz|cookie/i;

/** The cheap first look: false means scrubString would return the text unchanged. */
export function mayHoldSecret(text: string): boolean {
  return MAYBE_SECRET.test(text);
}

/** Replaces the secret parts of a string; returns the same string when there are none. */
export function scrubString(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  // Replacements only ever insert "[REDACTED]", so a hint absent from the original is absent
  // from every intermediate text too: one lower-casing serves every rule.
  const lower = text.toLowerCase();
  let out = text;
  for (const rule of RULES) {
    if (!rule.hints.some((hint) => lower.includes(hint))) continue;
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: unknown[]) => string);
  }
  return out;
}
