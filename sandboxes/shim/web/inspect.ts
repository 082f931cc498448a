/**
 * `console.log` formatting as Deno prints it (Deno's console is a port of Node's
 * util.inspect with double-quoted strings). The line-breaking rules follow Node's
 * `reduceToSingleString` and `groupArrayElements` closely because scripts printing arrays
 * and objects must produce Deno's exact bytes. Colors, getters and proxies are not shown.
 */
/**
 * Internal classes (URL, Event, AbortSignal, Headers...) describe themselves for the console
 * through this symbol, as Deno's own classes do: the method returns a string, or a view
 * made by `inspectAs` that is formatted like an object with that class name.
 */
export const PRIVATE_INSPECT = Symbol.for('Deno.privateCustomInspect');
/** The public hook a script's own class may define: `[Symbol.for("Deno.customInspect")](inspect, options)`. */
export const CUSTOM_INSPECT = Symbol.for('Deno.customInspect');
/**
 * Node's hook (`util.inspect.custom`), which Deno's console honours too: `(depth, options,
 * inspect)`. Buffer prints `<Buffer 68 69>` through it.
 */
export const NODE_CUSTOM_INSPECT = Symbol.for('nodejs.util.inspect.custom');

const VIEW = Symbol('inspect view');

interface View {
  [VIEW]: true;
  name: string;
  fields?: Record<string, unknown>;
  /** `Name { key => value, ... }`, as Map-like classes print */
  entries?: [unknown, unknown][];
  /** key: value pairs where a key may repeat (Headers' set-cookie) */
  pairs?: [string, unknown][];
  prefixed?: boolean;
}

export function inspectAs(name: string, fields: Record<string, unknown>): View {
  return { [VIEW]: true, name, fields };
}

/**
 * `Name { ... }` where the braces are a plain object's own inspect, the name put in front
 * after line breaking was decided (Deno's Headers, FormData and URL print this way, so a
 * line breaks a little later than for classes printed as a whole).
 */
export function inspectPrefixed(name: string, fields: Record<string, unknown> | [string, unknown][]): View {
  return Array.isArray(fields) ? { [VIEW]: true, name, pairs: fields, prefixed: true } : { [VIEW]: true, name, fields, prefixed: true };
}

export function inspectEntriesAs(name: string, entries: [unknown, unknown][]): View {
  return { [VIEW]: true, name, entries };
}

export interface InspectOptions {
  depth?: number;
  breakLength?: number;
  compact?: number | boolean;
  iterableLimit?: number;
  strAbbreviateSize?: number;
  sorted?: boolean;
  getters?: boolean;
  colors?: boolean;
  /** `node`: node:util.inspect's quoting (single quotes first); default: Deno's console (double quotes first) */
  quotes?: 'deno' | 'node';
  /** non-enumerable own properties too, as `[name]: value` (util.inspect's showHidden, `%o`) */
  showHidden?: boolean;
}

interface Ctx {
  node: boolean;
  showHidden: boolean;
  sorted?: boolean;
  getters?: boolean;
  seen: unknown[];
  circular: Map<unknown, number>;
  indentationLvl: number;
  currentDepth: number;
  depth: number;
  breakLength: number;
  compact: number;
  maxArrayLength: number;
  maxStringLength: number;
}

const IDENTIFIER = /^[a-zA-Z_][a-zA-Z_0-9]*$/;

export function quoteString(s: string, node = false): string {
  const quote = node
    ? !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes('`') && !s.includes('${') ? '`' : "'"
    : !s.includes('"') ? '"' : !s.includes("'") ? "'" : !s.includes('`') && !s.includes('${') ? '`' : '"';
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0').toUpperCase()}`;
    else out += ch;
  }
  return `${quote}${out}${quote}`;
}

function formatNumber(n: number): string {
  return Object.is(n, -0) ? '-0' : String(n);
}

function formatPrimitive(value: unknown, nested: boolean, node = false): string | undefined {
  switch (typeof value) {
    case 'string':
      return nested ? quoteString(value, node) : value;
    case 'number':
      return formatNumber(value);
    case 'bigint':
      return `${value}n`;
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return value.toString();
    default:
      return value === null ? 'null' : undefined;
  }
}

function functionBase(fn: Function): string {
  const source = Function.prototype.toString.call(fn);
  if (source.startsWith('class') && /^class\b/.test(source)) return `[class ${fn.name || '(anonymous)'}]`;
  const kind = source.startsWith('async') ? (source.includes('function*') ? 'AsyncGeneratorFunction' : 'AsyncFunction') : source.startsWith('function*') ? 'GeneratorFunction' : 'Function';
  return fn.name ? `[${kind}: ${fn.name}]` : `[${kind} (anonymous)]`;
}

function formatKey(key: string | symbol, node = false, hidden = false): string {
  // Deno 2.9 prints a symbol key bare (`Symbol(a): 1`), in the console and in node:util alike
  if (typeof key === 'symbol') return hidden ? `[${key.toString()}]` : key.toString();
  if (hidden) return `[${key}]`;
  return IDENTIFIER.test(key) ? key : quoteString(key, node);
}

function isBelowBreakLength(ctx: Ctx, output: string[], start: number, base: string): boolean {
  let total = output.length + start;
  if (total + output.length > ctx.breakLength) return false;
  for (const entry of output) {
    total += entry.length;
    if (total > ctx.breakLength) return false;
  }
  return base === '' || !base.includes('\n');
}

function groupArrayElements(ctx: Ctx, output: string[], value: unknown[] | undefined): string[] {
  let totalLength = 0;
  let maxLength = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--;
  const separatorSpace = 2;
  const dataLen: number[] = [];
  for (let i = 0; i < outputLength; i++) {
    const len = output[i]!.length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength && (totalLength / actualMax > 5 || maxLength <= 6)) {
    const averageBias = Math.sqrt(actualMax - totalLength / output.length);
    const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const maxLineLength: number[] = [];
    for (let i = 0; i < columns; i++) {
      let lineLength = 0;
      for (let j = i; j < output.length; j += columns) if (dataLen[j]! > lineLength) lineLength = dataLen[j]!;
      maxLineLength.push(lineLength + separatorSpace);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let i = 0; i < output.length; i++) {
        if (typeof value[i] !== 'number' && typeof value[i] !== 'bigint') {
          padStart = false;
          break;
        }
      }
    }
    const grouped: string[] = [];
    for (let i = 0; i < outputLength; i += columns) {
      const max = Math.min(i + columns, outputLength);
      let str = '';
      let j = i;
      for (; j < max - 1; j++) {
        const padding = maxLineLength[j - i]!;
        str += padStart ? `${output[j]}, `.padStart(padding, ' ') : `${output[j]}, `.padEnd(padding, ' ');
      }
      str += padStart ? output[j]!.padStart(maxLineLength[j - i]! - separatorSpace, ' ') : output[j]!;
      grouped.push(str);
    }
    if (ctx.maxArrayLength < output.length) grouped.push(output[outputLength]!);
    return grouped;
  }
  return output;
}

function reduceToSingleString(ctx: Ctx, output: string[], base: string, braces: [string, string], isArrayLike: boolean, depth: number, value: unknown): string {
  const entries = output.length;
  let lines = output;
  if (isArrayLike && entries > 6) lines = groupArrayElements(ctx, output, value as unknown[]);
  if (ctx.currentDepth - depth < ctx.compact && entries === lines.length) {
    const start = lines.length + ctx.indentationLvl + braces[0].length + base.length + 10;
    if (isBelowBreakLength(ctx, lines, start, base)) {
      const joined = lines.join(', ');
      if (!joined.includes('\n')) return `${base ? `${base} ` : ''}${braces[0]} ${joined} ${braces[1]}`;
    }
  }
  const indentation = `\n${' '.repeat(ctx.indentationLvl)}`;
  return `${base ? `${base} ` : ''}${braces[0]}${indentation}  ${lines.join(`,${indentation}  `)}${indentation}${braces[1]}`;
}

function constructorName(obj: object): string | null {
  let proto = Object.getPrototypeOf(obj) as object | null;
  while (proto) {
    const desc = Object.getOwnPropertyDescriptor(proto, 'constructor');
    if (desc && typeof desc.value === 'function' && desc.value.name !== '') return desc.value.name as string;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return null;
}

/** A value one level down: Node's formatProperty indents what it formats by two. */
function nestedValue(ctx: Ctx, value: unknown, depth: number): string {
  ctx.indentationLvl += 2;
  try {
    return formatValue(ctx, value, depth + 1, true);
  } finally {
    ctx.indentationLvl -= 2;
  }
}

function formatProperty(ctx: Ctx, value: object, key: string | symbol, depth: number, hidden = false): string {
  const desc = Object.getOwnPropertyDescriptor(value, key);
  const shownKey = formatKey(key, ctx.node, hidden);
  if (desc && !('value' in desc)) {
    const kind = desc.get ? (desc.set ? 'Getter/Setter' : 'Getter') : desc.set ? 'Setter' : 'undefined';
    if (kind === 'undefined') return `${shownKey}: undefined`;
    if (ctx.getters && desc.get) {
      try {
        return `${shownKey}: [${kind}: ${nestedValue(ctx, desc.get.call(value), depth)}]`;
      } catch (error) {
        return `${shownKey}: [${kind}: <Inspection threw (${error instanceof Error ? error.message : String(error)})>]`;
      }
    }
    return `${shownKey}: [${kind}]`;
  }
  return `${shownKey}: ${nestedValue(ctx, (value as Record<string | symbol, unknown>)[key], depth)}`;
}

function mapEntries(ctx: Ctx, entries: [unknown, unknown][], depth: number, size: number): string[] {
  ctx.indentationLvl += 2;
  try {
    const out = entries.map(([k, v]) => `${formatValue(ctx, k, depth + 1, true)} => ${formatValue(ctx, v, depth + 1, true)}`);
    if (size > entries.length) out.push(`... ${size - entries.length} more item${size - entries.length > 1 ? 's' : ''}`);
    return out;
  } finally {
    ctx.indentationLvl -= 2;
  }
}

function setEntries(ctx: Ctx, entries: unknown[], depth: number, size: number): string[] {
  ctx.indentationLvl += 2;
  try {
    const out = entries.map((v) => formatValue(ctx, v, depth + 1, true));
    if (size > entries.length) out.push(`... ${size - entries.length} more item${size - entries.length > 1 ? 's' : ''}`);
    return out;
  } finally {
    ctx.indentationLvl -= 2;
  }
}

function isView(value: unknown): value is View {
  return typeof value === 'object' && value !== null && (value as View)[VIEW] === true;
}

/** A class's own description (PRIVATE_INSPECT) or a script's customInspect, if either applies. */
function customized(ctx: Ctx, value: object, depth: number): string | undefined {
  let hook: unknown;
  let publicHook = false;
  let nodeHook: unknown;
  try {
    hook = (value as Record<symbol, unknown>)[PRIVATE_INSPECT];
    if (typeof hook !== 'function') {
      hook = (value as Record<symbol, unknown>)[CUSTOM_INSPECT];
      publicHook = true;
    }
    if (typeof hook !== 'function') nodeHook = (value as Record<symbol, unknown>)[NODE_CUSTOM_INSPECT];
  } catch {
    return undefined;
  }
  if (typeof nodeHook === 'function') {
    // Node's contract: (depth left, options, inspect); a returned value other than the object itself is formatted in its place
    const options = { depth: ctx.depth - depth, breakLength: ctx.breakLength, compact: ctx.compact, maxArrayLength: ctx.maxArrayLength, maxStringLength: ctx.maxStringLength, sorted: ctx.sorted, getters: ctx.getters, colors: false, showHidden: false, customInspect: true, stylize: (text: string) => text };
    const inspectFn = (v: unknown, o?: InspectOptions) => inspect(v, true, { quotes: ctx.node ? 'node' : 'deno', ...o });
    const result = (nodeHook as (d: number, o: unknown, i: unknown) => unknown).call(value, ctx.depth - depth, options, inspectFn);
    if (result === value) return undefined;
    if (typeof result === 'string') return result;
    return formatValue(ctx, result, depth, true);
  }
  if (typeof hook !== 'function') return undefined;
  const result = publicHook
    ? (hook as (inspect: unknown, options: unknown) => unknown).call(value, (v: unknown, o?: InspectOptions) => inspect(v, true, o), { depth: ctx.depth - depth, indentationLvl: ctx.indentationLvl, breakLength: ctx.breakLength })
    : (hook as () => unknown).call(value);
  if (typeof result === 'string') return result;
  if (isView(result)) return formatView(ctx, value, result, depth);
  return formatValue(ctx, result, depth, true);
}

function formatView(ctx: Ctx, owner: object, view: View, depth: number): string {
  if (depth > ctx.depth) return `[${view.name}]`;
  if (view.prefixed && view.pairs) {
    if (view.pairs.length === 0) return `${view.name} {}`;
    ctx.seen.push(owner);
    try {
      const output = view.pairs.map(([k, v]) => `${formatKey(k, ctx.node)}: ${nestedValue(ctx, v, depth)}`);
      return `${view.name} ${reduceToSingleString(ctx, output, '', ['{', '}'], false, depth, owner)}`;
    } finally {
      ctx.seen.pop();
    }
  }
  if (view.prefixed) {
    const plain = Object.assign(Object.create(Object.prototype) as Record<string, unknown>, view.fields);
    ctx.seen.push(owner);
    try {
      return `${view.name} ${formatValue(ctx, plain, depth, true)}`;
    } finally {
      ctx.seen.pop();
    }
  }
  ctx.seen.push(owner);
  ctx.currentDepth = depth;
  let output: string[];
  if (view.entries) output = mapEntries(ctx, view.entries, depth, view.entries.length);
  else {
    const fields = view.fields ?? {};
    output = Object.keys(fields).map((k) => `${formatKey(k, ctx.node)}: ${nestedValue(ctx, fields[k], depth)}`);
  }
  ctx.seen.pop();
  if (output.length === 0) return `${view.name} {}`;
  return reduceToSingleString(ctx, output, '', [`${view.name} {`, '}'], false, depth, owner);
}

function formatValue(ctx: Ctx, value: unknown, depth: number, nested: boolean): string {
  const primitive = formatPrimitive(value, nested, ctx.node);
  if (primitive !== undefined) {
    if (typeof value === 'string' && nested && value.length > ctx.maxStringLength) {
      return `${quoteString(value.slice(0, ctx.maxStringLength), ctx.node)}... ${value.length - ctx.maxStringLength} more character${value.length - ctx.maxStringLength > 1 ? 's' : ''}`;
    }
    return primitive;
  }
  if (typeof value === 'function' && !nested) return functionBase(value);
  const obj = value as object;
  if (ctx.seen.includes(obj)) {
    let index = ctx.circular.get(obj);
    if (index === undefined) {
      index = ctx.circular.size + 1;
      ctx.circular.set(obj, index);
    }
    return `[Circular *${index}]`;
  }
  const custom = customized(ctx, obj, depth);
  if (custom !== undefined) return custom;
  return formatRaw(ctx, obj, depth);
}

/**
 * Node's improveStack (Deno's console has it too): an error whose `name` differs from its class
 * shows both, `Error [TypeError]: x`, when its stack begins with that name.
 */
function improveStack(stack: string, constructor: string | null, name: string, tag: string): string {
  let len = name.length;
  const looksNormal = name.endsWith('Error') && stack.startsWith(name) && (stack.length === len || stack[len] === ':' || stack[len] === '\n');
  if (constructor !== null && !looksNormal) return stack;
  let fallback = 'Error';
  if (constructor === null) {
    const start = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/.exec(stack) ?? /^([a-z_A-Z0-9-]*Error)$/.exec(stack);
    fallback = start?.[1] ?? '';
    len = fallback.length;
    fallback = fallback || 'Error';
  }
  const prototype = constructor === null ? `[${fallback}: null prototype]${tag ? ` [${tag}]` : ''}` : `${constructor}${tag && tag !== constructor ? ` [${tag}]` : ''}`;
  if (name === prototype) return stack;
  if (prototype.includes(name)) return len === 0 ? `${prototype}: ${stack}` : `${prototype}${stack.slice(len)}`;
  return `${prototype} [${name}]${stack.slice(len)}`;
}

function formatRaw(ctx: Ctx, value: object, depth: number): string {
  const name = constructorName(value);
  let keys: (string | symbol)[] = Object.keys(value);
  const symbols = Object.getOwnPropertySymbols(value).filter((s) => Object.prototype.propertyIsEnumerable.call(value, s));
  let braces: [string, string] = ['{', '}'];
  let base = '';
  let isArrayLike = false;
  let formatter: () => string[] = () => [];
  let tag = '';
  try {
    const t = (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    if (typeof t === 'string' && t !== '' && t !== name) tag = t;
  } catch {
    tag = '';
  }
  const hasHidden = ctx.showHidden && Reflect.ownKeys(value).some((k) =>
    !Object.prototype.propertyIsEnumerable.call(value, k)
    && !(typeof k === 'string' && /^(0|[1-9][0-9]*)$/.test(k) && (Array.isArray(value) || ArrayBuffer.isView(value)))
    && !(value instanceof Error && (k === 'stack' || k === 'message')));
  // Node's getPrefix: `Object [Array Iterator] {}` when the tag differs from the class name.
  const prefix = name === null ? `[Object: null prototype] ${tag ? `[${tag}] ` : ''}` : name === 'Object' && !tag ? '' : `${name} ${tag ? `[${tag}] ` : ''}`;

  if (Array.isArray(value)) {
    isArrayLike = true;
    keys = keys.filter((k) => typeof k !== 'string' || !/^(0|[1-9][0-9]*)$/.test(k));
    braces = [`${name === 'Array' ? '' : prefix}${name === 'Array' && value.length === 0 ? '' : ''}[`, ']'];
    if (name !== 'Array') braces[0] = `${name}(${value.length}) [`;
    if (value.length === 0 && keys.length === 0 && !hasHidden) return `${braces[0]}]`;
    formatter = () => formatArray(ctx, value, depth);
  } else if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    isArrayLike = true;
    const typed = value as unknown as ArrayLike<number | bigint>;
    braces = [`${name}(${typed.length}) [`, ']'];
    keys = [];
    if (typed.length === 0) return `${braces[0]}]`;
    formatter = () => Array.from({ length: Math.min(typed.length, ctx.maxArrayLength) }, (_, i) => formatPrimitive(typed[i], true, ctx.node)!).concat(typed.length > ctx.maxArrayLength ? [`... ${typed.length - ctx.maxArrayLength} more item${typed.length - ctx.maxArrayLength > 1 ? 's' : ''}`] : []);
  } else if (value instanceof Map) {
    braces = [`${prefix.trim() === 'Map' ? 'Map' : name}(${value.size}) {`, '}'];
    if (value.size === 0 && keys.length === 0) return `${braces[0]}}`;
    formatter = () => mapEntries(ctx, [...value].slice(0, ctx.maxArrayLength), depth, value.size);
  } else if (value instanceof Set) {
    braces = [`${name}(${value.size}) {`, '}'];
    if (value.size === 0 && keys.length === 0) return `${braces[0]}}`;
    formatter = () => setEntries(ctx, [...value].slice(0, ctx.maxArrayLength), depth, value.size);
    isArrayLike = true;
  } else if (value instanceof Date) {
    base = Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
    if (keys.length === 0 && !hasHidden) return base;
  } else if (value instanceof RegExp) {
    base = RegExp.prototype.toString.call(value);
    if (keys.length === 0 && !hasHidden) return base;
  } else if (value instanceof Error) {
    const stack = typeof value.stack === 'string' ? value.stack : `${value.name}: ${value.message}`;
    base = improveStack(stack, name, value.name == null ? 'Error' : String(value.name), tag);
    // Node's removeDuplicateErrorKeys: own name/message/stack the stack already shows are not repeated.
    keys = keys.filter((k) => k !== 'stack' && !((k === 'name' || k === 'message') && (typeof (value as unknown as Record<string, unknown>)[k] !== 'string' || stack.includes((value as unknown as Record<string, string>)[k]!))));
    if (keys.length === 0 && !hasHidden) return base;
  } else if (typeof value === 'function') {
    base = functionBase(value);
    if (keys.length === 0 && !hasHidden) return base;
  } else if (value instanceof Promise) {
    return 'Promise { <unknown> }';
  } else if (value instanceof WeakMap || value instanceof WeakSet) {
    return `${name} { <items unknown> }`;
  } else if (value instanceof ArrayBuffer) {
    const bytes = new Uint8Array(value);
    const hex = Array.from(bytes.subarray(0, 50), (b) => b.toString(16).padStart(2, '0')).join(' ');
    return `ArrayBuffer { [Uint8Contents]: <${hex}${bytes.length > 50 ? ` ... ${bytes.length - 50} more bytes` : ''}>, byteLength: ${bytes.length} }`;
  } else {
    if (keys.length === 0 && symbols.length === 0 && !hasHidden) return `${prefix}{}`;
    braces = [`${prefix}{`, '}'];
  }

  if (depth > ctx.depth) {
    return `[${Array.isArray(value) ? 'Array' : name ?? 'Object'}]`;
  }

  ctx.seen.push(value);
  ctx.currentDepth = depth;
  const output = formatter();
  const shownKeys = ctx.sorted ? [...keys].sort() : keys;
  for (const key of [...shownKeys, ...symbols]) output.push(formatProperty(ctx, value, key, depth));
  if (ctx.showHidden) {
    const isIndex = (k: string | symbol) => typeof k === 'string' && /^(0|[1-9][0-9]*)$/.test(k) && (Array.isArray(value) || ArrayBuffer.isView(value));
    for (const key of Reflect.ownKeys(value)) {
      if (Object.prototype.propertyIsEnumerable.call(value, key) || isIndex(key)) continue;
      if (value instanceof Error && (key === 'stack' || key === 'message')) continue;
      output.push(formatProperty(ctx, value, key, depth, true));
    }
  }
  ctx.seen.pop();
  const index = ctx.circular.get(value);
  const reference = index === undefined ? '' : `<ref *${index}> `;
  const result = reduceToSingleString(ctx, output, base, braces, isArrayLike, depth, value);
  return `${reference}${result}`;
}

function formatArray(ctx: Ctx, value: unknown[], depth: number): string[] {
  const output: string[] = [];
  const max = Math.min(value.length, ctx.maxArrayLength);
  let holes = 0;
  const flushHoles = (): void => {
    if (holes > 0) output.push(`<${holes} empty item${holes > 1 ? 's' : ''}>`);
    holes = 0;
  };
  for (let i = 0; i < max; i++) {
    if (!Object.prototype.hasOwnProperty.call(value, i)) {
      holes++;
      continue;
    }
    flushHoles();
    output.push(nestedValue(ctx, value[i], depth));
  }
  flushHoles();
  if (value.length > max) output.push(`... ${value.length - max} more item${value.length - max > 1 ? 's' : ''}`);
  return output;
}

export function inspect(value: unknown, nested = true, options: InspectOptions = {}): string {
  const compact = options.compact === false ? 0 : options.compact === true || options.compact === undefined ? 3 : Number(options.compact);
  const ctx: Ctx = {
    node: options.quotes === 'node',
    showHidden: Boolean(options.showHidden),
    seen: [], circular: new Map(), indentationLvl: 0, currentDepth: 0,
    depth: options.depth === undefined ? 4 : options.depth === null ? Infinity : Number(options.depth),
    breakLength: options.breakLength ?? 80,
    compact,
    maxArrayLength: options.iterableLimit ?? 100,
    maxStringLength: options.strAbbreviateSize ?? 10_000,
    sorted: Boolean(options.sorted),
    getters: Boolean(options.getters),
  };
  return formatValue(ctx, value, 0, nested);
}

/** `console.log(fmt, ...args)`: printf-style `%s %d %i %f %o %O %j %c %%`, then the rest space-joined. */
export function formatArgs(args: unknown[]): string {
  if (args.length === 0) return '';
  const first = args[0];
  let rest = args.slice(1);
  let out = '';
  if (typeof first === 'string' && rest.length > 0 && first.includes('%')) {
    let i = 0;
    out = first.replace(/%([sdifoOjc%])/g, (match, spec: string) => {
      if (spec === '%') return '%';
      if (i >= rest.length) return match;
      const arg = rest[i++];
      switch (spec) {
        case 's':
          return typeof arg === 'string' ? arg : typeof arg === 'bigint' ? `${arg}n` : typeof arg === 'object' && arg !== null ? inspect(arg) : formatPrimitive(arg, false) ?? inspect(arg);
        case 'd':
        case 'i':
          if (typeof arg === 'bigint') return `${arg}n`;
          if (typeof arg === 'symbol') return 'NaN';
          return formatNumber(spec === 'i' ? Math.trunc(Number(arg)) : Number(arg));
        case 'f':
          return typeof arg === 'symbol' ? 'NaN' : formatNumber(Number(arg));
        case 'j':
          return JSON.stringify(arg);
        case 'c':
          return '';
        default:
          return inspect(arg);
      }
    });
    rest = rest.slice(i);
  } else {
    out = typeof first === 'string' ? first : inspect(first);
  }
  for (const arg of rest) out += ` ${typeof arg === 'string' ? arg : inspect(arg)}`;
  return out;
}
