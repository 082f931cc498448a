/**
 * The patterns gate-check.prose-risk looks for. A skill's prose is instructions an agent will
 * follow with the user's credentials and machine at hand, so the risky instructions are the
 * ones that reach for what the agent should never hand over, or run what nobody reviewed:
 *
 *   credential-store   a private key, a credential file or store (~/.ssh, id_rsa, ~/.aws,
 *                      .netrc, keychains, browser logins, cloud metadata endpoints)
 *   private-key        a private key embedded in the draft itself
 *   network-pipe       code fetched from the network straight into an interpreter
 *                      (`curl … | sh`, `bash <(curl …)`, `iex (iwr …)`, `deno run https://…`)
 *   environment-dump   the whole environment (printenv, /proc/self/environ) sent somewhere
 *   secret-to-host     a secret variable sent outside its own Authorization header
 *   files-to-host      local files uploaded to another host (curl -F @, scp, rsync, nc <)
 *   exfil-host         a host that exists to receive data (webhook catchers, paste and
 *                      tunnel services) or a public IP address in place of a name
 *   credentials-to-host  prose telling the agent to send a password, key or token to a host
 *   concealment        prose telling the agent to hide what it does from the user, or to
 *                      ignore its instructions
 *   hidden-text        bidirectional overrides or zero-width characters that hide text
 *
 * A secret used in its own Authorization header to an API is ordinary and is not a finding;
 * it is listed as a note for the reviewer. The patterns were run over every skill of the
 * corpus in ../shared/corpus/anthropic-skills, which they do not flag (features/gate/README.md).
 */

export interface Finding {
  rule: string;
  file: string;
  line: number;
  /** what the rule found, in a few words */
  what: string;
  /** the line, cut to size, control characters escaped */
  excerpt: string;
}

const SEND = String.raw`\b(?:curl|wget|http(?:ie)?|nc|ncat|netcat|socat|scp|rsync|sftp|ftp|sendmail|mail|mutt|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b|\bfetch\s*\(|\brequests\.(?:post|put|get)\b|\bhttpx?\.(?:post|put)\b|\baxios\.(?:post|put)\b|\burllib\.request\b`;
const SEND_RE = new RegExp(SEND, 'i');

const CREDENTIAL_STORES: { re: RegExp; what: string }[] = [
  { re: /(?:~|\$HOME|\$\{HOME\}|\/home\/[^/\s]+|\/root|%USERPROFILE%)[\\/]\.ssh\b/i, what: 'the SSH folder' },
  { re: /\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)/, what: 'an SSH private key' },
  { re: /\bauthorized_keys\b/, what: 'the SSH authorized_keys file' },
  { re: /\.aws[\\/](?:credentials|config)\b/i, what: 'AWS credentials' },
  { re: /(?:~|\$HOME)[\\/]\.(?:netrc|git-credentials|npmrc|pypirc|docker[\\/]config\.json|kube[\\/]config|gnupg|password-store)\b|\.git-credentials\b/i, what: 'a credential file in the home folder' },
  { re: /\.config[\\/](?:gh[\\/]hosts\.ya?ml|gcloud\b)/i, what: 'a CLI credential store' },
  { re: /\/etc\/(?:shadow|gshadow|sudoers)\b/, what: 'a system password or sudo file' },
  { re: /\bsecurity\s+(?:find|dump)-(?:generic|internet)-password\b|\blogin\.keychain\b|\bkeychain-db\b/i, what: 'the macOS keychain' },
  { re: /\b(?:Login Data|cookies\.sqlite|key[34]\.db|logins\.json)\b/, what: "a browser's stored logins or cookies" },
  { re: /\b169\.254\.169\.254\b|\bmetadata\.google\.internal\b|\b100\.100\.100\.200\b/, what: 'a cloud metadata endpoint (instance credentials)' },
];

const PRIVATE_KEY = /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/;

const NETWORK_PIPES: RegExp[] = [
  /\b(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:ba|z|da|k|fi|c|tc)?sh\b/i,
  /\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|node|deno|bun|perl|ruby|php|pwsh|powershell)\b/i,
  /\b(?:ba|z|k)?sh\b\s+(?:-[a-z]*c\s+)?["']?\$\(\s*(?:curl|wget)\b/i,
  /<\(\s*(?:curl|wget)\b/i,
  /\beval\s+["']?\$\(\s*(?:curl|wget)\b/i,
  /\b(?:iex|Invoke-Expression)\b[^\n]*\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|Net\.WebClient)\b/i,
  /\bdeno\s+(?:run|install)\b[^\n]*\bhttps?:\/\//i,
];

const ENV_DUMP = /\bprintenv\b|\/proc\/(?:self|\d+)\/environ\b|\bDeno\.env\.toObject\s*\(|\bos\.environ\b(?!\s*[[.]\s*(?:get\b|["']))|(?:^|[\s|;(`])env\s*\|/i;

const SECRET_VAR = /\$\{?[A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)[A-Z0-9_]*\}?|\b(?:process\.env|Deno\.env\.get\(|os\.environ(?:\.get\()?\[?|os\.getenv\()\s*\.?\s*["']?[A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]*/;
const AUTH_HEADER = /\b(?:Authorization|X-Api-Key|Api-Key|X-Auth-Token|PRIVATE-TOKEN)\s*:\s*(?:Bearer\s+|token\s+|Basic\s+)?["']?\$\{?[A-Z0-9_]+\}?/i;

const FILE_UPLOADS: RegExp[] = [
  /\bcurl\b[^\n]*\s(?:-F|--form)\s+["']?[^\s=]+=@/i,
  /\bcurl\b[^\n]*\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-T|--upload-file)\s+["']?@?(?:~|\/|\$HOME|\.\.?\/)/i,
  /\bscp\b[^\n]*\s\S*@?[A-Za-z0-9.-]+:\S*/,
  /\brsync\b[^\n]*\s\S*@[A-Za-z0-9.-]+:\S*/,
  /\b(?:nc|ncat|netcat)\b\s+(?:-\S+\s+)*[A-Za-z0-9.-]+\s+\d+\s*<\s*\S+/i,
  /\btar\b[^|\n]*\|\s*(?:curl|nc|ncat|netcat|ssh)\b/i,
];

const EXFIL_HOSTS = /\b(?:webhook\.site|requestbin\.(?:com|net)|[a-z0-9-]+\.requestcatcher\.com|pipedream\.net|[a-z0-9-]+\.ngrok(?:-free)?\.(?:io|app|dev)|ngrok\.io|transfer\.sh|pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|0x0\.st|termbin\.com|interact\.sh|oast\.(?:fun|pro|live|site|online|me)|burpcollaborator\.net|discord(?:app)?\.com\/api\/webhooks|api\.telegram\.org\/bot)\b/i;

const URL_RE = /\bhttps?:\/\/([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\])(?::\d+)?/g;

/** True for loopback, private, link-local and documentation addresses and names. */
export function isLocalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || h === '::1' || h === '0.0.0.0') return true;
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a === 0;
}

function isPublicIp(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) && !isLocalHost(host) && !/^(?:192\.0\.2|198\.51\.100|203\.0\.113)\./.test(host) && host !== '169.254.169.254';
}

/** True when every host the line names (by URL or as `host:` of scp and rsync) is local. */
function onlyLocal(line: string): boolean {
  const named = [...hostsIn(line), ...[...line.matchAll(/(?:^|\s)(?:[\w.-]+@)?([A-Za-z0-9.-]+):(?!\/\/)/g)].map((m) => m[1]!.toLowerCase())];
  return named.length > 0 && named.every(isLocalHost);
}

/** The hosts named in a line by URL. */
export function hostsIn(line: string): string[] {
  return [...line.matchAll(URL_RE)].map((m) => m[1]!.toLowerCase());
}

const SEND_VERB = /\b(?:send|sends|sending|upload|uploads|uploading|post|posts|posting|transmit|transmits|forward|forwards|exfiltrate|exfiltrates|leak|leaks|email|e-mail|share|submit|copy|paste)\b/i;
const CREDENTIAL_NOUN = /\b(?:passwords?|passphrases?|private keys?|ssh keys?|api keys?|access keys?|secret keys?|secrets|credentials?|tokens?|session cookies?|cookies|seed phrases?|recovery phrases?|id_rsa|\.ssh)\b/i;
const DESTINATION = /\bhttps?:\/\/(?!(?:localhost|127\.0\.0\.1)\b)[^\s)>"'`]+|\b[\w.+-]+@[\w-]+\.[\w.-]+\b|\bto\s+(?:the|this|our|my|an?)\s+(?:server|host|endpoint|webhook|address|url|site|channel|inbox|bucket)\b/i;

const CONCEALMENT: RegExp[] = [
  /\b(?:do not|don't|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|mention(?:ing)?|reveal(?:ing)?|show(?:ing)?)\s+(?:this\s+(?:to\s+)?)?(?:the|your)\s+(?:user|human|operator)\b/i,
  /\b(?:hide|conceal|keep)\s+(?:this|it|these|the \w+)\s+(?:(?:hidden|secret)\s+)?from\s+(?:the|your)\s+(?:user|human|operator)\b/i,
  /\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:(?:your|the|any)\s+)?(?:previous|prior|earlier|above|system|other)\s+(?:instructions|prompts?|rules|guidelines)\b/i,
];

/** Bidirectional overrides and isolates, and zero-width characters other than the joiners scripts and emoji need. */
const HIDDEN = /[\u202A-\u202E\u2066-\u2069\u200B\u2060\u180E]|(?<!^)\uFEFF/u;

function excerpt(line: string): string {
  const shown = JSON.stringify(line.trim()).slice(1, -1);
  return shown.length > 160 ? `${shown.slice(0, 159)}…` : shown;
}

/** Findings of the rules that look at one line. */
export function lineFindings(file: string, lineNo: number, line: string): Finding[] {
  const found: Finding[] = [];
  const add = (rule: string, what: string) => found.push({ rule, file, line: lineNo, what, excerpt: excerpt(line) });
  for (const store of CREDENTIAL_STORES) {
    if (store.re.test(line)) {
      add('credential-store', `reaches for ${store.what}`);
      break;
    }
  }
  if (PRIVATE_KEY.test(line)) add('private-key', 'embeds a private key');
  if (NETWORK_PIPES.some((re) => re.test(line))) add('network-pipe', 'runs code fetched from the network without review');
  const sends = SEND_RE.test(line);
  if (sends && ENV_DUMP.test(line)) add('environment-dump', 'sends the whole environment somewhere');
  if (sends && SECRET_VAR.test(line)) {
    const withoutAuth = line.replace(new RegExp(AUTH_HEADER.source, 'gi'), '');
    if (SECRET_VAR.test(withoutAuth)) add('secret-to-host', 'sends a secret variable to a host outside an Authorization header');
  }
  if (FILE_UPLOADS.some((re) => re.test(line)) && !onlyLocal(line)) add('files-to-host', 'uploads local files to another host');
  const exfil = EXFIL_HOSTS.exec(line);
  if (exfil) add('exfil-host', `names ${exfil[0]}, a service that exists to receive data`);
  const ip = hostsIn(line).find(isPublicIp);
  if (ip) add('exfil-host', `names the public IP address ${ip} in place of a host name`);
  if (HIDDEN.test(line)) add('hidden-text', 'holds invisible or text-reversing characters');
  return found;
}

/** A secret used in its own Authorization header: not a finding, a note for the reviewer. */
export function authNote(line: string): string | null {
  if (!SEND_RE.test(line) || !AUTH_HEADER.test(line)) return null;
  const hosts = hostsIn(line).filter((h) => !isLocalHost(h));
  return hosts.length > 0 ? hosts.join(', ') : 'a host';
}

const WINDOW = 3;

/** Findings of the rules that read a paragraph as sentences (prose wraps across lines). */
export function paragraphFindings(file: string, firstLine: number, lines: readonly string[]): Finding[] {
  // A sentence is a few lines at most: a long block (code, a table) is read three lines at a
  // time, so words far apart never make a finding together.
  if (lines.length > WINDOW) {
    const found = new Map<string, Finding>();
    for (let i = 0; i + WINDOW <= lines.length; i++) {
      for (const f of paragraphFindings(file, firstLine + i, lines.slice(i, i + WINDOW))) found.set(`${f.rule}:${f.line}`, f);
    }
    return [...found.values()];
  }
  const text = lines.join(' ');
  const found: Finding[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+(?=[A-Z`*_"'(\[])/)) {
    const at = (re: RegExp): number => {
      const i = lines.findIndex((l) => re.test(l));
      return firstLine + Math.max(0, i);
    };
    if (SEND_VERB.test(sentence) && CREDENTIAL_NOUN.test(sentence) && DESTINATION.test(sentence)) {
      found.push({ rule: 'credentials-to-host', file, line: at(CREDENTIAL_NOUN), what: 'tells the agent to send credentials or keys to a host', excerpt: excerpt(sentence) });
    }
    const hide = CONCEALMENT.find((re) => re.test(sentence));
    if (hide) found.push({ rule: 'concealment', file, line: at(hide), what: 'tells the agent to hide what it does or to ignore its instructions', excerpt: excerpt(sentence) });
  }
  return found;
}

/** Every finding of one text file, the outside hosts it names, and the notes for the reviewer. */
export function scanText(file: string, text: string): { findings: Finding[]; hosts: string[]; authNotes: string[] } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const findings: Finding[] = [];
  const hosts: string[] = [];
  const authNotes: string[] = [];
  let paragraph: string[] = [];
  let paragraphStart = 1;
  const flush = () => {
    if (paragraph.length > 0) findings.push(...paragraphFindings(file, paragraphStart, paragraph));
    paragraph = [];
  };
  lines.forEach((line, i) => {
    findings.push(...lineFindings(file, i + 1, line));
    hosts.push(...hostsIn(line).filter((h) => !isLocalHost(h)));
    const note = authNote(line);
    if (note !== null) authNotes.push(`${file}:${i + 1}: sends a secret in an Authorization header to ${note}: that the host is the service the secret belongs to is not evaluated`);
    if (line.trim() === '' || /^\s*(```|~~~|#)/.test(line)) {
      flush();
      paragraphStart = i + 2;
    } else paragraph.push(line);
  });
  flush();
  return { findings, hosts, authNotes };
}
