/** Small argument checks shared by ops: a bad shape is a TypeError inside the isolate. */
import path from 'node:path';
import { DenoOpError } from './deno-error.ts';

export function record(raw: unknown): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new DenoOpError('TypeError', 'expected an options object');
  return raw as Record<string, unknown>;
}

export function str(obj: Record<string, unknown>, key: string): string {
  const value = obj[key];
  if (typeof value !== 'string') throw new DenoOpError('TypeError', `"${key}" must be a string`);
  return value;
}

export function optStr(obj: Record<string, unknown>, key: string): string | null {
  const value = obj[key];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new DenoOpError('TypeError', `"${key}" must be a string`);
  return value;
}

export function bool(obj: Record<string, unknown>, key: string): boolean {
  return obj[key] === true;
}

export function int(obj: Record<string, unknown>, key: string, min: number, max: number): number {
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new DenoOpError('RangeError', `"${key}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A sandbox path made absolute against the sandboxed code's cwd, as Deno resolves it. */
export function resolvePath(cwd: string, p: string): string {
  if (p.length === 0) throw new DenoOpError('NotFound', `No such file or directory (os error 2)`);
  if (p.includes('\0')) throw new DenoOpError('TypeError', 'path must not contain NUL bytes');
  return path.resolve(cwd, p);
}
