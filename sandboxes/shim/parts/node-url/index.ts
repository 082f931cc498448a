/**
 * `node:url` and `node:querystring`: the WHATWG `URL`/`URLSearchParams` (the web part's),
 * Node's file-URL helpers, the legacy `url.parse`/`format`/`resolve`, and querystring. Pure code.
 */
import { nodeError, invalidArgType } from '../node-errors/index.ts';
import { Url, urlFormat, urlParse, urlResolve } from './legacy.ts';
import { querystring } from './querystring.ts';
import { punycodeToUnicode } from './punycode.ts';

type URLClass = new (url: string, base?: string) => URL;
const URLOf = (): URLClass => (globalThis as unknown as { URL: URLClass }).URL;

function fileURLToPath(path: string | URL, _options?: { windows?: boolean }): string {
  const URLCtor = URLOf();
  let url: URL;
  if (typeof path === 'string') url = new URLCtor(path);
  else if (path instanceof URLCtor) url = path;
  else throw invalidArgType('path', 'of type string or an instance of URL', path);
  if (url.protocol !== 'file:') throw nodeError(TypeError, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
  if (url.hostname !== '' && url.hostname !== 'localhost') throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
  const pathname = url.pathname;
  if (/%2f/i.test(pathname)) throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
  return decodeURIComponent(pathname);
}

function resolvePath(path: string): string {
  const cwd = (globalThis as unknown as { Deno: { cwd(): string } }).Deno.cwd();
  const joined = path.startsWith('/') ? path : `${cwd}/${path}`;
  const out: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

function pathToFileURL(path: string, _options?: { windows?: boolean }): URL {
  if (typeof path !== 'string') throw invalidArgType('path', 'of type string', path);
  let resolved = resolvePath(path);
  if (path.endsWith('/') && !resolved.endsWith('/')) resolved += '/';
  const encoded = resolved.replace(/%/g, '%25').replace(/\\/g, '%5C').replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/\t/g, '%09').replace(/#/g, '%23').replace(/\?/g, '%3F');
  const url = new (URLOf())('file://');
  url.pathname = encoded;
  return url;
}

function urlToHttpOptions(url: URL): Record<string, unknown> {
  const options: Record<string, unknown> = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    hash: url.hash,
    search: url.search,
    pathname: url.pathname,
    path: `${url.pathname || ''}${url.search || ''}`,
    href: url.href,
  };
  if (url.port !== '') options.port = Number(url.port);
  if (url.username || url.password) options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return options;
}

function domainToASCII(domain: string): string {
  try {
    return new (URLOf())(`ws://${domain}`).hostname;
  } catch {
    return '';
  }
}

function domainToUnicode(domain: string): string {
  const ascii = domainToASCII(domain);
  if (ascii === '') return '';
  return ascii.split('.').map((label) => (label.startsWith('xn--') ? punycodeToUnicode(label.slice(4)) : label)).join('.');
}

const url: Record<string, unknown> = {
  Url,
  parse: urlParse,
  format: urlFormat,
  resolve: urlResolve,
  resolveObject: (source: string, relative: string) => urlParse(urlResolve(source, relative)),
  fileURLToPath,
  pathToFileURL,
  urlToHttpOptions,
  domainToASCII,
  domainToUnicode,
};
for (const name of ['URL', 'URLSearchParams'] as const) {
  Object.defineProperty(url, name, { enumerable: true, configurable: true, get: () => (globalThis as Record<string, unknown>)[name] });
}
Object.defineProperty(url, 'default', { value: url, enumerable: false });
Object.defineProperty(querystring, 'default', { value: querystring, enumerable: false });

export const modules = { url, querystring };
