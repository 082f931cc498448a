/**
 * `Deno.permissions` (`query`, `request`, `revoke` and their `*Sync` forms), `Deno.Permissions`
 * and `Deno.PermissionStatus`. The host answers from the run's grant (sandboxes/deno/ops/
 * permissions.ts); this side validates descriptors with Deno's errors and keeps one status
 * object per descriptor, an EventTarget whose `state` follows later answers, as in Deno.
 */
import { callSync } from '../host.ts';
import { reportUnanswered } from '../unsupported.ts';
import { denoNamespace } from '../deno/namespace-ref.ts';
import { PRIVATE_INSPECT, inspectAs } from '../web/inspect.ts';
import { Event, EventTarget, defineEventHandler } from './events/index.ts';

type State = 'granted' | 'prompt' | 'denied';
const INTERNAL = Symbol('internal');

const NAMES = ['read', 'write', 'net', 'env', 'sys', 'run', 'ffi', 'import'] as const;
const VALUE_KEY: Record<string, string> = { read: 'path', write: 'path', ffi: 'path', net: 'host', import: 'host', env: 'variable', run: 'command', sys: 'kind' };
const SYS_KINDS = new Set(['loadavg', 'hostname', 'osRelease', 'osUptime', 'networkInterfaces', 'systemMemoryInfo', 'uid', 'gid', 'cpus', 'homedir', 'statfs', 'getPriority', 'setPriority', 'userInfo', 'username']);

export class PermissionStatus extends EventTarget {
  #state: State;
  #partial: boolean;

  constructor(...args: unknown[]) {
    if (args[2] !== INTERNAL) throw new TypeError('Illegal constructor');
    super();
    this.#state = args[0] as State;
    this.#partial = args[1] as boolean;
  }

  get state(): State {
    return this.#state;
  }

  get partial(): boolean {
    return this.#partial;
  }

  /** @internal a later answer for the same descriptor: the state changes, `change` fires */
  update(state: State, partial: boolean): void {
    const changed = state !== this.#state;
    this.#state = state;
    this.#partial = partial;
    if (changed) this.dispatchEvent(new Event('change'));
  }

  override get [Symbol.toStringTag](): string {
    return 'PermissionStatus';
  }

  [PRIVATE_INSPECT](): unknown {
    const fields: Record<string, unknown> = { state: this.#state, onchange: (this as unknown as { onchange: unknown }).onchange };
    if (this.#partial) fields.partial = true;
    return inspectAs('PermissionStatus', fields);
  }
}
defineEventHandler(PermissionStatus.prototype, 'change');
const { get: onchangeGet, set: onchangeSet } = Object.getOwnPropertyDescriptor(PermissionStatus.prototype, 'onchange')!;
const onchange = { get: onchangeGet, set: onchangeSet };
delete (PermissionStatus.prototype as { onchange?: unknown }).onchange;
const update = PermissionStatus.prototype.update;
delete (PermissionStatus.prototype as { update?: unknown }).update;

/** Rust's host:port parser's words, which Deno passes on as URIError. */
function checkHost(host: string): void {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(host);
  const name = m?.[1] ?? host;
  const port = m?.[2];
  if (port !== undefined) {
    if (port === '') throw new URIError(`invalid empty port in '${host}'`);
    if (!/^\d+$/.test(port) || Number(port) > 65535) throw new URIError(`invalid port in '${host}': '${port}'`);
  }
  if (!name.startsWith('[') && /[\s/\\?#@<>^|%]/.test(name)) throw new URIError(`invalid host '${name}': invalid char found in FQDN`);
}

function pathValue(value: unknown): string {
  const URLClass = (globalThis as unknown as { URL: new (u: string) => { protocol: string; pathname: string } }).URL;
  if (typeof value === 'object' && value !== null && value instanceof URLClass) {
    const url = value as { protocol: string; pathname: string };
    if (url.protocol !== 'file:') throw new TypeError('Must be a file URL');
    return decodeURIComponent(url.pathname);
  }
  return String(value);
}

/** Deno's descriptor checks: the name, then the value's own form. Returns the wire form. */
function descriptor(desc: unknown): { name: string; [key: string]: string } {
  const o = desc !== null && typeof desc === 'object' ? (desc as Record<string, unknown>) : {};
  const name = o.name;
  if (typeof name !== 'string' || !(NAMES as readonly string[]).includes(name)) {
    throw new TypeError(`The provided value "${name === undefined ? 'undefined' : String(name)}" is not a valid permission name`);
  }
  const key = VALUE_KEY[name]!;
  const raw = o[key];
  if (raw === undefined) return { name };
  let value: string;
  if (name === 'read' || name === 'write' || name === 'ffi' || name === 'run') value = pathValue(raw);
  else value = String(raw);
  if (name === 'net' || name === 'import') checkHost(value);
  if (name === 'sys' && !SYS_KINDS.has(value)) throw new TypeError(`unknown system info kind "${value}"`);
  return { name, [key]: value };
}

const statuses = new Map<string, PermissionStatus>();

/** A request the descriptor check refuses (Deno's TypeError or URIError) is still an attempt to gain its kind. */
function requested(desc: unknown): { name: string; [key: string]: string } {
  try {
    return descriptor(desc);
  } catch (error) {
    let name: unknown;
    try {
      name = (desc as { name?: unknown } | null)?.name;
    } catch {
      name = undefined;
    }
    if (typeof name === 'string') reportUnanswered('permissions.request', { name });
    throw error;
  }
}

function answer(op: string, desc: unknown): PermissionStatus {
  const wire = op === 'permissions.request' ? requested(desc) : descriptor(desc);
  const { state, partial } = callSync<{ state: State; partial: boolean }>(op, wire);
  const key = JSON.stringify(wire);
  const known = statuses.get(key);
  if (known) {
    update.call(known, state, partial);
    return known;
  }
  const status = new PermissionStatus(state, partial, INTERNAL);
  // Deno's status has `onchange` as its own property (scripts see it in Object.keys).
  Object.defineProperty(status, 'onchange', { ...onchange, enumerable: true, configurable: true });
  statuses.set(key, status);
  return status;
}

export class Permissions {
  constructor(...args: unknown[]) {
    if (args[0] !== INTERNAL) throw new TypeError('Illegal constructor');
  }

  query(desc: Deno.PermissionDescriptor): Promise<PermissionStatus> {
    try {
      return Promise.resolve(answer('permissions.query', desc));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  querySync(desc: Deno.PermissionDescriptor): PermissionStatus {
    return answer('permissions.query', desc);
  }

  // No terminal: a request is answered as `deno run --no-prompt` answers it.
  request(desc: Deno.PermissionDescriptor): Promise<PermissionStatus> {
    try {
      return Promise.resolve(answer('permissions.request', desc));
    } catch (error) {
      // Deno's async request ends this one message with a period (its other forms do not)
      if (error instanceof TypeError && error.message.endsWith('is not a valid permission name')) return Promise.reject(new TypeError(`${error.message}.`));
      return Promise.reject(error);
    }
  }

  requestSync(desc: Deno.PermissionDescriptor): PermissionStatus {
    return answer('permissions.request', desc);
  }

  revoke(desc: Deno.PermissionDescriptor): Promise<PermissionStatus> {
    try {
      return Promise.resolve(answer('permissions.revoke', desc));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  revokeSync(desc: Deno.PermissionDescriptor): PermissionStatus {
    return answer('permissions.revoke', desc);
  }

  get [Symbol.toStringTag](): string {
    return 'Permissions';
  }

  [PRIVATE_INSPECT](): unknown {
    return 'Permissions {}';
  }
}

declare namespace Deno {
  type PermissionDescriptor = { name: string; [key: string]: unknown };
}

const deno = denoNamespace();
for (const [name, value] of Object.entries({ permissions: new Permissions(INTERNAL), Permissions, PermissionStatus })) {
  Object.defineProperty(deno, name, { value, writable: true, configurable: true, enumerable: true });
}
