/**
 * `DOMException` as Deno defines it (WebIDL legacy codes, a `stack` accessor, `cause` in
 * the options form, an inspect that prints the stack), `QuotaExceededError` (its subclass
 * with `quota` and `requested`), and `structuredClone` (core-js, which finds this
 * DOMException for its DataCloneError).
 */
import { defineGlobal } from '../parts-loader.ts';
import { PRIVATE_INSPECT } from '../web/inspect.ts';

const CODES: Record<string, number> = {
  IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
  NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InUseAttributeError: 10,
  InvalidStateError: 11, SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14,
  InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20,
  URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
};

const LEGACY: [string, number][] = [
  ['INDEX_SIZE_ERR', 1], ['DOMSTRING_SIZE_ERR', 2], ['HIERARCHY_REQUEST_ERR', 3], ['WRONG_DOCUMENT_ERR', 4],
  ['INVALID_CHARACTER_ERR', 5], ['NO_DATA_ALLOWED_ERR', 6], ['NO_MODIFICATION_ALLOWED_ERR', 7], ['NOT_FOUND_ERR', 8],
  ['NOT_SUPPORTED_ERR', 9], ['INUSE_ATTRIBUTE_ERR', 10], ['INVALID_STATE_ERR', 11], ['SYNTAX_ERR', 12],
  ['INVALID_MODIFICATION_ERR', 13], ['NAMESPACE_ERR', 14], ['INVALID_ACCESS_ERR', 15], ['VALIDATION_ERR', 16],
  ['TYPE_MISMATCH_ERR', 17], ['SECURITY_ERR', 18], ['NETWORK_ERR', 19], ['ABORT_ERR', 20], ['URL_MISMATCH_ERR', 21],
  ['QUOTA_EXCEEDED_ERR', 22], ['TIMEOUT_ERR', 23], ['INVALID_NODE_TYPE_ERR', 24], ['DATA_CLONE_ERR', 25],
];

interface State {
  message: string;
  name: string;
  code: number;
}

const states = new WeakMap<object, State>();

function stateOf(value: unknown): State {
  const state = states.get(value as object);
  if (!state) throw new TypeError('Illegal invocation');
  return state;
}

/** Gives `target` a `stack` accessor, as V8 does for errors Deno creates (its value captured now). */
function installStack(target: object, constructorFn: Function): void {
  const holder: { stack?: string } = {};
  (Error as unknown as { captureStackTrace?: (o: object, f: Function) => void }).captureStackTrace?.(holder, constructorFn);
  let stack = holder.stack;
  Object.defineProperty(target, 'stack', {
    configurable: true,
    enumerable: false,
    get: () => stack,
    set: (value: string) => {
      stack = value;
    },
  });
}

export class DOMException extends Error {
  constructor(message = '', options: string | { name?: string; cause?: unknown } = 'Error') {
    super();
    // Error's own `message` would be an own property: Deno's lives on the prototype.
    delete (this as { message?: string }).message;
    let name = 'Error';
    if (typeof options === 'object' && options !== null) {
      name = options.name === undefined ? 'Error' : String(options.name);
      if ('cause' in options) Object.defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true, enumerable: false });
    } else if (options !== undefined) name = String(options);
    const code = Object.prototype.hasOwnProperty.call(CODES, name) ? CODES[name]! : 0;
    states.set(this, { message: message === undefined ? '' : String(message), name, code });
    installStack(this, new.target);
    // the stack's first line was taken before the name was known
    const stack = (this as { stack?: string }).stack;
    if (stack) (this as { stack?: string }).stack = `${name}${this.message ? `: ${this.message}` : ''}${stack.slice(stack.indexOf('\n') === -1 ? stack.length : stack.indexOf('\n'))}`;
  }

  override get message(): string {
    return stateOf(this).message;
  }

  override get name(): string {
    return stateOf(this).name;
  }

  get code(): number {
    return stateOf(this).code;
  }

  get [Symbol.toStringTag](): string {
    return 'DOMException';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!states.has(this)) return 'DOMException';
    return (this as { stack?: string }).stack ?? `${this.name}: ${this.message}`;
  }
}

for (const [key, value] of LEGACY) {
  Object.defineProperty(DOMException, key, { value, enumerable: true });
  Object.defineProperty(DOMException.prototype, key, { value, enumerable: true });
}

export class QuotaExceededError extends DOMException {
  readonly #quota: number | null;
  readonly #requested: number | null;

  constructor(message = '', options: { quota?: number; requested?: number } = {}) {
    super(message, 'QuotaExceededError');
    const quota = options?.quota === undefined ? null : Number(options.quota);
    const requested = options?.requested === undefined ? null : Number(options.requested);
    if (quota !== null && quota < 0) throw new RangeError("Failed to construct 'QuotaExceededError': quota must not be negative");
    if (requested !== null && requested < 0) throw new RangeError("Failed to construct 'QuotaExceededError': requested must not be negative");
    this.#quota = quota;
    this.#requested = requested;
    // its legacy code, although the name is not in DOMException's table
    stateOf(this).code = 22;
  }

  get quota(): number | null {
    return this.#quota;
  }

  get requested(): number | null {
    return this.#requested;
  }
}

declare const require: (id: string) => unknown;

type Clone = (value: unknown, options?: { transfer?: unknown[] }) => unknown;
let coreClone: Clone | undefined;

/**
 * core-js's structuredClone, loaded at the first call: while loading it looks at globals
 * (Blob, File, DOMException...) whose parts may be loading themselves when this part is.
 */
function loadCoreClone(): Clone {
  const g = globalThis as Record<string, unknown>;
  const ours = g.structuredClone;
  delete g.structuredClone;
  try {
    require('core-js/modules/web.structured-clone.js');
    return g.structuredClone as Clone;
  } finally {
    Object.defineProperty(g, 'structuredClone', { value: ours, writable: true, configurable: true, enumerable: false });
  }
}

function structuredClone(value: unknown, options?: { transfer?: unknown[] }): unknown {
  if (arguments.length === 0) throw new TypeError("Failed to execute 'structuredClone' on 'Window': 1 argument required, but only 0 present");
  coreClone ??= loadCoreClone();
  if (options === undefined || options === null) return coreClone(value);
  // This engine cannot detach an ArrayBuffer: a transferred buffer is copied, and the
  // original stays usable (Deno would leave it detached, with byteLength 0).
  const transfer = Array.isArray(options.transfer) ? options.transfer.filter((t) => !(t instanceof ArrayBuffer)) : options.transfer;
  return coreClone(value, { ...options, transfer });
}

defineGlobal('DOMException', DOMException);
defineGlobal('QuotaExceededError', QuotaExceededError);
defineGlobal('structuredClone', structuredClone);
