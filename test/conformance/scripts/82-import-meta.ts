// flags: (none)
// args: (none)
// import.meta: url, main, filename, dirname, resolve, in the entry module and in a module it imports.
import { meta, resolved } from './lib/meta-lib.ts';
const short = (s: string | undefined) => s?.replace(/^.*\/conformance\//, '…/').replace(/^.*\/conformance$/, '…');
console.log(short(import.meta.url), import.meta.main, short(import.meta.filename), short(import.meta.dirname));
console.log(Object.keys(import.meta), Object.getPrototypeOf(import.meta), import.meta === import.meta);
console.log(short(import.meta.resolve('./x.ts')), import.meta.resolve('npm:pkg@1'), import.meta.resolve('https://example.com/m.js'));
try {
  import.meta.resolve('bare-name');
} catch (e) {
  console.log((e as Error).name, (e as Error).message);
}
console.log(meta, resolved);
console.log(typeof import.meta.resolve, import.meta.resolve.name);
console.log(short(Deno.mainModule));
