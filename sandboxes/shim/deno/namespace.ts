/** The `Deno` global: the documented subset, each member a broker op or pure code. */
import { callSync } from '../host.ts';
import { inspect } from '../web/inspect.ts';
import { Command } from './command.ts';
import { errors } from './errors.ts';
import { fs } from './fs.ts';
import { permissions } from './permissions.ts';

/** Thrown by `Deno.exit` to unwind the script; the host has already recorded the exit. */
export class ExitSignal {
  readonly code: number;
  constructor(code: number) {
    this.code = code;
  }
}

export function makeDeno(args: readonly string[], build: { os: string; arch: string }): Record<string, unknown> {
  const env = {
    get: (name: string) => callSync<string | null>('env.get', { name: String(name) }) ?? undefined,
    has: (name: string) => callSync<string | null>('env.get', { name: String(name) }) !== null,
    set: (name: string, value: string) => void callSync('env.set', { name: String(name), value: String(value) }),
    delete: (name: string) => void callSync('env.delete', { name: String(name) }),
    toObject: () => callSync<Record<string, string>>('env.toObject', {}),
  };
  return {
    ...fs,
    env,
    Command,
    permissions,
    errors,
    args: Object.freeze([...args]),
    build: Object.freeze({ os: build.os, arch: build.arch }),
    inspect: (value: unknown) => inspect(value, false),
    cwd: () => callSync<string>('fs.cwd', {}),
    exit: (code = 0): never => {
      const status = Number.isInteger(code) ? code : 0;
      callSync('process.exit', { code: status });
      throw new ExitSignal(status);
    },
  };
}
