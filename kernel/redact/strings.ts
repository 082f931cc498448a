/**
 * Secrets inside otherwise harmless strings: a pasted `Authorization: Bearer ...` header,
 * an `sk-...` provider key in an error message, `password=...` in a URL or a config dump.
 * Only the secret part is replaced, so the rest of the message stays readable.
 */

export const REDACTED = '[REDACTED]';

interface StringRule {
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

/** True when a candidate key looks random enough to be a credential (letters and digits mixed). */
function looksRandom(text: string): boolean {
  return /\d/.test(text) && /[A-Za-z]/.test(text);
}

/** Secret names as they appear in text: `api_key`, `X-Api-Key`, `access-token`, `password`, `Cookie`... */
const SECRET_NAME =
  '(?:[a-z0-9]+[_-]){0,4}(?:api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|private[_-]?key|password|passwd|secret|token|proxy-authorization|authorization|set-cookie|cookie)';

const RULES: readonly StringRule[] = [
  // Header lines: the whole value goes, whatever scheme it uses.
  {
    pattern: /\b(proxy-authorization|authorization|set-cookie|cookie)(\s*:\s*)(?!\s*\[REDACTED\])[^\r\n]+/gi,
    replace: (_m, name, sep) => `${name}${sep}${REDACTED}`,
  },
  // Authorization schemes written inline.
  { pattern: /\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, replace: (_m, scheme, space) => `${scheme}${space}${REDACTED}` },
  {
    pattern: /\b(Basic)(\s+)([A-Za-z0-9+/]{12,}={0,2})/g,
    replace: (m, scheme, space, value) =>
      /[\d=+/]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)) ? `${scheme}${space}${REDACTED}` : m,
  },
  // Provider keys: OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), and the like.
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: (m) => (looksRandom(m.slice(3)) ? REDACTED : m) },
  { pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, replace: () => REDACTED },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: () => REDACTED },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: () => REDACTED },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: () => REDACTED },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replace: () => REDACTED },
  // JSON Web Tokens (header.payload.signature, both first parts base64url JSON).
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: () => REDACTED },
  // user:password@ in URLs.
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, replace: (_m, head) => `${head}${REDACTED}@` },
  // key=value and "key": "value" for secret names, in query strings, env dumps and JSON text.
  // A quoted value is replaced up to its closing quote, so `"Basic dXNlcjpwYXNz"` goes whole.
  {
    pattern: new RegExp(`\\b(${SECRET_NAME})(["']?\\s*[:=]\\s*)(["'])(?!\\[REDACTED\\])(?:(?!\\3)[^\\\\\\r\\n]|\\\\.)+\\3`, 'gi'),
    replace: (_m, name, sep, quote) => `${name}${sep}${quote}${REDACTED}${quote}`,
  },
  {
    pattern: new RegExp(`\\b(${SECRET_NAME})(["']?\\s*[:=]\\s*)(?!["'\\s])(?!\\[REDACTED\\])[^\\s"'&,;}]+`, 'gi'),
    replace: (_m, name, sep) => `${name}${sep}${REDACTED}`,
  },
];

/** A cheap first look: a string with none of these can hold none of the secrets above. */
const MAYBE_SECRET = /bearer|basic|sk-|gh[pousr]_|github_pat_|xox|AKIA|ASIA|AIza|eyJ|:\/\/[^\s/]*:[^\s/]*@|key|token|secret|passw|authoriz|cookie/i;

/** Replaces the secret parts of a string; returns the same string when there are none. */
export function scrubString(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: unknown[]) => string);
  }
  return out;
}
