/**
 * `util.isDeepStrictEqual` (and the loose comparison `assert.deepEqual` uses), after Node's
 * comparisons.js: same prototype and tag in strict mode, own enumerable keys and symbols,
 * Map/Set contents regardless of order, typed arrays by bytes, Dates and RegExps by value,
 * boxed primitives by value, errors by name and message too, cycles handled.
 */
type Memo = Map<unknown, unknown>;

const tag = (v: unknown): string => Object.prototype.toString.call(v);

function ownKeys(value: object, strict: boolean): (string | symbol)[] {
  const keys: (string | symbol)[] = Object.keys(value);
  if (strict) for (const s of Object.getOwnPropertySymbols(value)) if (Object.prototype.propertyIsEnumerable.call(value, s)) keys.push(s);
  return keys;
}

function primitiveEqual(a: unknown, b: unknown, strict: boolean): boolean {
  // eslint-disable-next-line eqeqeq
  return strict ? Object.is(a, b) : a == b || (Number.isNaN(a) && Number.isNaN(b));
}

function innerEqual(a: unknown, b: unknown, strict: boolean, memo: Memo): boolean {
  if (a === b) return a !== 0 || !strict || Object.is(a, b);
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (typeof a === 'function' || typeof b === 'function') return false;
    if ((typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null)) {
      return !strict && (a === null || b === null) ? false : false;
    }
    return primitiveEqual(a, b, strict);
  }
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ta = tag(a);
  if (ta !== tag(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const seen = memo.get(a);
  if (seen !== undefined && seen === b) return true;
  memo.set(a, b);
  try {
    if (a instanceof Date && b instanceof Date) {
      if (a.getTime() !== b.getTime() && !(Number.isNaN(a.getTime()) && Number.isNaN(b.getTime()))) return false;
    } else if (a instanceof RegExp && b instanceof RegExp) {
      if (a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
    } else if (a instanceof Error && b instanceof Error) {
      if (a.message !== b.message || a.name !== b.name) return false;
    } else if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
      const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      if (!strict && (ta === '[object Float32Array]' || ta === '[object Float64Array]')) {
        const fa = a as unknown as ArrayLike<number>;
        const fb = b as unknown as ArrayLike<number>;
        if (fa.length !== fb.length) return false;
        for (let i = 0; i < fa.length; i++) if (fa[i] !== fb[i]) return false;
      } else {
        if (x.length !== y.length) return false;
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
      }
      return keysEqual(a, b, strict, memo, true);
    } else if (a instanceof ArrayBuffer && b instanceof ArrayBuffer) {
      const x = new Uint8Array(a);
      const y = new Uint8Array(b);
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    } else if (a instanceof Map && b instanceof Map) {
      if (a.size !== b.size || !mapEqual(a, b, strict, memo)) return false;
    } else if (a instanceof Set && b instanceof Set) {
      if (a.size !== b.size || !setEqual(a, b, strict, memo)) return false;
    } else if (ta === '[object Number]' || ta === '[object String]' || ta === '[object Boolean]' || ta === '[object BigInt]' || ta === '[object Symbol]') {
      if (!Object.is((a as { valueOf(): unknown }).valueOf(), (b as { valueOf(): unknown }).valueOf())) return false;
    } else if (a instanceof WeakMap || a instanceof WeakSet || a instanceof Promise) {
      return false;
    }
    return keysEqual(a, b, strict, memo, false);
  } finally {
    memo.delete(a);
  }
}

function keysEqual(a: object, b: object, strict: boolean, memo: Memo, typedArray: boolean): boolean {
  let ka = ownKeys(a, strict);
  let kb = ownKeys(b, strict);
  if (typedArray) {
    ka = ka.filter((k) => typeof k !== 'string' || !/^\d+$/.test(k));
    kb = kb.filter((k) => typeof k !== 'string' || !/^\d+$/.test(k));
  }
  if (ka.length !== kb.length) return false;
  for (const key of ka) {
    if (!Object.prototype.propertyIsEnumerable.call(b, key)) return false;
  }
  if (Array.isArray(a) && (a as unknown[]).length !== (b as unknown[]).length) return false;
  for (const key of ka) {
    if (!innerEqual((a as Record<string | symbol, unknown>)[key], (b as Record<string | symbol, unknown>)[key], strict, memo)) return false;
  }
  return true;
}

function setEqual(a: Set<unknown>, b: Set<unknown>, strict: boolean, memo: Memo): boolean {
  const rest: unknown[] = [];
  for (const v of a) {
    if (typeof v === 'object' && v !== null) rest.push(v);
    else if (!b.has(v)) {
      if (strict) return false;
      rest.push(v);
    }
  }
  if (rest.length === 0) return true;
  const candidates = [...b].filter((v) => (typeof v === 'object' && v !== null) || !a.has(v));
  for (const v of rest) {
    const i = candidates.findIndex((c) => innerEqual(v, c, strict, memo));
    if (i === -1) return false;
    candidates.splice(i, 1);
  }
  return true;
}

function mapEqual(a: Map<unknown, unknown>, b: Map<unknown, unknown>, strict: boolean, memo: Memo): boolean {
  const rest: [unknown, unknown][] = [];
  for (const [k, v] of a) {
    if (typeof k === 'object' && k !== null) rest.push([k, v]);
    else if (!b.has(k) || !innerEqual(v, b.get(k), strict, memo)) {
      if (strict) return false;
      rest.push([k, v]);
    }
  }
  if (rest.length === 0) return true;
  const candidates = [...b].filter(([k]) => (typeof k === 'object' && k !== null) || !a.has(k));
  for (const [k, v] of rest) {
    const i = candidates.findIndex(([ck, cv]) => innerEqual(k, ck, strict, memo) && innerEqual(v, cv, strict, memo));
    if (i === -1) return false;
    candidates.splice(i, 1);
  }
  return true;
}

export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return innerEqual(a, b, true, new Map());
}

export function isDeepEqual(a: unknown, b: unknown): boolean {
  return innerEqual(a, b, false, new Map());
}
