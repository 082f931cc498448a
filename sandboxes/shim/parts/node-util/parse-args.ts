/** `util.parseArgs`, after Node's lib/internal/util/parse_args: long and short options, `--`, tokens. */
import { invalidArgType, nodeError } from '../node-errors/index.ts';

interface OptionConfig {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: unknown;
}

interface ParseArgsConfig {
  args?: string[];
  options?: Record<string, OptionConfig>;
  strict?: boolean;
  allowPositionals?: boolean;
  allowNegative?: boolean;
  tokens?: boolean;
}

type Token =
  | { kind: 'option'; name: string; rawName: string; index: number; value: string | undefined; inlineValue: boolean | undefined }
  | { kind: 'positional'; index: number; value: string }
  | { kind: 'option-terminator'; index: number };

function denoArgs(): string[] {
  return [...((globalThis as unknown as { Deno: { args: string[] } }).Deno.args)];
}

export function parseArgs(config: ParseArgsConfig = {}): { values: Record<string, unknown>; positionals: string[]; tokens?: Token[] } {
  if (config === null || typeof config !== 'object') throw invalidArgType('config', 'of type object', config);
  const args = config.args ?? denoArgs();
  const strict = config.strict ?? true;
  const allowPositionals = config.allowPositionals ?? !strict;
  const allowNegative = config.allowNegative ?? false;
  const options = config.options ?? {};
  if (!Array.isArray(args)) throw invalidArgType('args', 'an instance of Array', args);
  for (const [name, o] of Object.entries(options)) {
    if (o === null || typeof o !== 'object') throw invalidArgType(`options.${name}`, 'of type object', o);
    if (o.type !== 'string' && o.type !== 'boolean') throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.${name}.type' must be one of: 'string', 'boolean'. Received '${String(o.type)}'`);
    if (o.short !== undefined && (typeof o.short !== 'string' || o.short.length !== 1)) throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.${name}.short' must be a single character. Received '${String(o.short)}'`);
  }
  const shortToLong = (short: string): string => Object.keys(options).find((n) => options[n]!.short === short) ?? short;
  const tokens: Token[] = [];
  let index = -1;
  const remaining = [...args];
  while (remaining.length > 0) {
    const arg = remaining.shift()!;
    index++;
    if (arg === '--') {
      tokens.push({ kind: 'option-terminator', index });
      for (const rest of remaining) tokens.push({ kind: 'positional', index: ++index, value: rest });
      break;
    }
    if (arg.length === 2 && arg[0] === '-' && arg[1] !== '-') {
      const name = shortToLong(arg[1]!);
      let value: string | undefined;
      let inlineValue: boolean | undefined;
      if (options[name]?.type === 'string' && remaining.length > 0 && !(remaining[0]!.startsWith('-') && remaining[0]!.length > 1)) {
        value = remaining.shift();
        inlineValue = false;
      }
      tokens.push({ kind: 'option', name, rawName: arg, index, value, inlineValue });
      if (value !== undefined) index++;
      continue;
    }
    if (arg.length > 2 && arg[0] === '-' && arg[1] !== '-') {
      const first = arg[1]!;
      const firstName = shortToLong(first);
      if (options[firstName]?.type === 'string') {
        tokens.push({ kind: 'option', name: firstName, rawName: `-${first}`, index, value: arg.slice(2), inlineValue: true });
        continue;
      }
      const expanded = [...arg.slice(1)].map((c) => `-${c}`);
      // a group of short flags (`-abc`): each becomes its own argument at the same index
      const group: string[] = [];
      for (let i = 0; i < expanded.length; i++) {
        const c = expanded[i]!.slice(1);
        const name = shortToLong(c);
        if (options[name]?.type === 'string' && i < expanded.length - 1) {
          group.push(`-${c}${expanded.slice(i + 1).map((e) => e.slice(1)).join('')}`);
          break;
        }
        group.push(`-${c}`);
      }
      remaining.unshift(...group);
      index--;
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq !== -1) {
        tokens.push({ kind: 'option', name: arg.slice(2, eq), rawName: arg.slice(0, eq), index, value: arg.slice(eq + 1), inlineValue: true });
        continue;
      }
      const name = arg.slice(2);
      let value: string | undefined;
      let inlineValue: boolean | undefined;
      if (options[name]?.type === 'string' && remaining.length > 0 && !(remaining[0]!.startsWith('-') && remaining[0]!.length > 1)) {
        value = remaining.shift();
        inlineValue = false;
      }
      tokens.push({ kind: 'option', name, rawName: arg, index, value, inlineValue });
      if (value !== undefined) index++;
      continue;
    }
    tokens.push({ kind: 'positional', index, value: arg });
  }

  const values = Object.create(null) as Record<string, unknown>;
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (!allowPositionals) {
        throw nodeError(TypeError, 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL', `Unexpected argument '${token.value}'. This command does not take positional arguments`);
      }
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    let name = token.name;
    let negated = false;
    if (allowNegative && name.startsWith('no-') && options[name.slice(3)]?.type === 'boolean') {
      name = name.slice(3);
      negated = true;
    }
    const o = options[name];
    if (strict) {
      if (!o) {
        const suggestion = token.rawName.startsWith('--') ? '' : ` To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- ${JSON.stringify(token.rawName)}'`;
        throw nodeError(TypeError, 'ERR_PARSE_ARGS_UNKNOWN_OPTION', `Unknown option '${token.rawName}'.${suggestion}`.replace(/\.$/, ''));
      }
      if (o.type === 'string' && typeof token.value !== 'string') {
        throw nodeError(TypeError, 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE', `Option '${o.short ? `-${o.short}, ` : ''}--${name} <value>' argument missing`);
      }
      if (o.type === 'boolean' && token.value !== undefined) {
        throw nodeError(TypeError, 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE', `Option '${o.short ? `-${o.short}, ` : ''}--${name}' does not take an argument`);
      }
    }
    const value = negated ? false : token.value ?? true;
    if (o?.multiple) {
      const list = (values[name] as unknown[] | undefined) ?? [];
      list.push(value);
      values[name] = list;
    } else values[name] = value;
  }
  for (const [name, o] of Object.entries(options)) {
    if (o.default !== undefined && values[name] === undefined) values[name] = o.default;
  }
  return config.tokens ? { values, positionals, tokens } : { values, positionals };
}
