/**
 * The plugins the cases load, written into a temp folder: a ~200 KB one for cold start
 * (real code, not one big string literal, so V8 has functions to parse and compile) split
 * over three files so the bundler follows relative imports, and a small one for call round
 * trips and broker ops.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Bytes of source the big plugin should bundle to, roughly. */
export const BIG_PLUGIN_BYTES = 200 * 1024;

function functionTable(count: number): string {
  const entries: string[] = [];
  for (let i = 0; i < count; i++) {
    entries.push(
      `  op${i}(a: number, b: number): number {\n` +
        `    const k = ${(i * 7919) % 1000} + a * ${i % 17};\n` +
        `    if (b > ${i % 50}) return k - b * ${(i % 13) + 1};\n` +
        `    for (let j = 0; j < ${(i % 5) + 1}; j++) a = (a * 31 + j) % ${1009 + i};\n` +
        `    return a + k;\n` +
        `  },`,
    );
  }
  return `export const TABLE: Record<string, (a: number, b: number) => number> = {\n${entries.join('\n')}\n};\n`;
}

function dataTable(count: number): string {
  const rows: string[] = [];
  for (let i = 0; i < count; i++) rows.push(`  { id: ${i}, name: "entry-${i}", weight: ${(i * 0.37).toFixed(2)}, tags: ["t${i % 7}", "g${i % 11}"] },`);
  return `export interface Entry { id: number; name: string; weight: number; tags: string[] }\nexport const DATA: Entry[] = [\n${rows.join('\n')}\n];\n`;
}

const BIG_ENTRY = `import { TABLE } from './table.ts';
import { DATA, type Entry } from './plugin-source.ts';

export function echo<T>(x: T): T {
  return x;
}

export function apply(name: string, a: number, b: number): number {
  const fn = TABLE[name];
  if (!fn) throw new Error('no op ' + name);
  return fn(a, b);
}

export function find(id: number): Entry | undefined {
  return DATA.find((e) => e.id === id);
}
`;

/** Writes the ~200 KB plugin; returns its entry file. Functions take ~2/3 of the bytes, data the rest. */
export function writeBigPlugin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'table.ts'), functionTable(900));
  writeFileSync(path.join(dir, 'data.ts'), dataTable(850));
  writeFileSync(path.join(dir, 'plugin.ts'), BIG_ENTRY);
  // The same work as a `deno run` script: load the plugin, answer one call.
  writeFileSync(path.join(dir, 'deno-main.ts'), `import { echo } from './plugin.ts';\nconsole.log(JSON.stringify(echo({ n: 1 })));\n`);
  return path.join(dir, 'plugin.ts');
}

const SMALL_ENTRY = `export function echo<T>(x: T): T {
  return x;
}

/** n broker ops from inside the isolate, each a sync host round trip through the broker. */
export function envLoop(n: number): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < n; i++) value = Deno.env.get('BENCH_X');
  return value;
}

/** n reads of one file, each an async broker op. */
export async function readLoop(n: number, file: string): Promise<number> {
  let total = 0;
  for (let i = 0; i < n; i++) total += (await Deno.readTextFile(file)).length;
  return total;
}
`;

export function writeSmallPlugin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'small.ts'), SMALL_ENTRY);
  return path.join(dir, 'small.ts');
}

/** Scripts for `sandbox run` style cases, each also valid under the real Deno. */
export function writeScripts(dir: string): { echoArgs: string; envLoop: string; readLoop: string } {
  mkdirSync(dir, { recursive: true });
  const echoArgs = path.join(dir, 'echo-args.ts');
  writeFileSync(echoArgs, `const input = JSON.parse(Deno.args[0] ?? 'null');\nconsole.log(JSON.stringify(input));\n`);
  const envLoop = path.join(dir, 'env-loop.ts');
  writeFileSync(envLoop, `const n = Number(Deno.args[0]);\nlet v: string | undefined;\nfor (let i = 0; i < n; i++) v = Deno.env.get('BENCH_X');\nconsole.log(v);\n`);
  const readLoop = path.join(dir, 'read-loop.ts');
  writeFileSync(
    readLoop,
    `const n = Number(Deno.args[0]);\nconst file = Deno.args[1]!;\nlet total = 0;\nfor (let i = 0; i < n; i++) total += (await Deno.readTextFile(file)).length;\nconsole.log(total);\n`,
  );
  return { echoArgs, envLoop, readLoop };
}
