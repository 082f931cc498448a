// Types for plugin code edited here: the sandbox offers the Deno subset documented in the
// README. Plugins are checked by esbuild at build time, not by the kernel's tsc run.
declare const Deno: { readTextFile(path: string): Promise<string> };
