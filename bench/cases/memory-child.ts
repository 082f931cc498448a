/**
 * Run in its own Node process by cases/memory.ts, so resident memory is measured from a clean
 * start: creates COUNT isolates of one kind, each with a small plugin loaded, keeps them all
 * alive, and prints the RSS before and after as one JSON line on stdout.
 *   argv: <project|raw> <count> <cacheDir> <pluginEntry>
 *   project: IsolateRuntime.create (shim from code cache, trusted profile) + load(plugin)
 *   raw:     new ivm.Isolate + createContext + compile and run the same plugin bundle
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import ivm from 'isolated-vm';
import { bundleEntry } from '../../sandboxes/loader/bundle.ts';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';
import { loadShim, withCodeCache } from '../../sandboxes/isolate/shim-source.ts';
import { brokerFor, runtimeOptions, trustedProfile } from '../lib/setup.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const [kind, countText, cacheDir, entry] = process.argv.slice(2);
const count = Number(countText);
if ((kind !== 'project' && kind !== 'raw') || !Number.isInteger(count) || !cacheDir || !entry) {
  throw new Error('usage: memory-child.ts <project|raw> <count> <cacheDir> <pluginEntry>');
}

const shim = await loadShim(cacheDir);
const bundle = await bundleEntry(entry, cacheDir);
const plugin = withCodeCache(bundle.code, bundle.digest, `file://${entry}`, cacheDir);
const profile = trustedProfile();
const broker = brokerFor(profile, [], process.cwd(), {});
const rawCode = `(function () {${bundle.code.slice('(async function () {'.length)}`;

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

await settle();
const before = process.memoryUsage().rss;
const keep: unknown[] = [];
const started = performance.now();
for (let i = 0; i < count; i++) {
  if (kind === 'project') {
    const runtime = IsolateRuntime.create(shim, runtimeOptions(profile, broker));
    await runtime.load(plugin);
    if (runtime.callSync('echo', [i]) !== i) throw new Error('wrong echo');
    keep.push(runtime);
  } else {
    const isolate = new ivm.Isolate({ memoryLimit: profile.limits.memoryMb });
    const context = isolate.createContextSync();
    const main = isolate.compileScriptSync(rawCode).runSync(context, { reference: true }) as ivm.Reference;
    const ns = main.applySync(undefined, [], { result: { reference: true } }) as ivm.Reference;
    const echo = ns.getSync('echo', { reference: true }) as ivm.Reference;
    if (echo.applySync(undefined, [i]) !== i) throw new Error('wrong echo');
    keep.push({ isolate, context, ns, echo });
  }
}
const seconds = (performance.now() - started) / 1000;
await settle();
const after = process.memoryUsage().rss;
process.stdout.write(`${JSON.stringify({ kind, count, before, after, seconds, alive: keep.length })}\n`);
// Exit without disposing: the OS takes it all back, and dispose-then-exit has crashed before.
process.exit(0);
