/**
 * Which files of a draft are code, and of what sort: tests (named as `deno test` finds them:
 * `test.ts`, `*_test.ts`, `*.test.ts`, also .mts, .js, .mjs), other TypeScript/JavaScript the
 * sandbox can run, and code in other languages, which this gate cannot run and only lists.
 */
export const TEST_FILE = /(^|\/)(test|[^/]*[._]test)\.(ts|mts|js|mjs)$/;
export const RUNNABLE = /\.(ts|mts|js|mjs)$/;

const FOREIGN: Record<string, string> = {
  py: 'Python', sh: 'shell', bash: 'shell', zsh: 'shell', fish: 'shell', rb: 'Ruby', pl: 'Perl', php: 'PHP', ps1: 'PowerShell',
  bat: 'batch', cmd: 'batch', go: 'Go', rs: 'Rust', c: 'C', h: 'C', cc: 'C++', cpp: 'C++', java: 'Java', kt: 'Kotlin',
  lua: 'Lua', r: 'R', jl: 'Julia', swift: 'Swift', cjs: 'CommonJS', cts: 'CommonJS TypeScript', tsx: 'TSX', jsx: 'JSX', wasm: 'WebAssembly',
  exe: 'a native program', so: 'a native library', dylib: 'a native library', dll: 'a native library',
};

/** The language of a file this gate cannot run, by its extension or its `#!` line; null for everything else. */
export function foreignLanguage(path: string, firstBytes: string): string | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  if (ext !== undefined && FOREIGN[ext]) return FOREIGN[ext]!;
  if (firstBytes.startsWith('#!')) return `a script (${firstBytes.split('\n')[0]!.slice(0, 80)})`;
  return null;
}
