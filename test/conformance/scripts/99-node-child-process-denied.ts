// flags: --allow-env --allow-run=echo
// args: (none)
// node:child_process refused where Deno refuses (with the env grant; without it every call is
// NotCapable for NODE_V8_COVERAGE, see 102): an ungranted program is NotCapable (or "Command failed"
// for the *Sync helpers, as in Deno), exec needs /bin/sh granted.
import cp from 'node:child_process';
const show = (label: string, fn: () => unknown) => {
  try {
    console.log(label, 'ok', JSON.stringify(fn()));
  } catch (e) {
    console.log(label, (e as Error).name, e instanceof Deno.errors.NotCapable, (e as Error).message);
  }
};
show('spawnSync inherits env', () => cp.spawnSync('echo', ['x']).status);
show('spawnSync with env', () => String(cp.spawnSync('echo', ['x'], { env: {} }).stdout));
show('spawnSync ungranted', () => cp.spawnSync('ls', ['/'], { env: {} }));
show('execFileSync ungranted', () => cp.execFileSync('ls', [], { env: {} }));
show('execSync needs /bin/sh', () => cp.execSync('echo hi', { env: {} }));
show('spawn inherits env', () => typeof cp.spawn('echo', ['x']).pid);
const child = cp.spawn('ls', [], { env: {} });
const error = await new Promise<Error>((resolve) => child.on('error', resolve));
console.log('spawn ungranted', error.name, error instanceof Deno.errors.NotCapable, error.message);
await new Promise<void>((resolve) => cp.exec('echo hi', { env: {} }, (e) => {
  console.log('exec ungranted shell', e?.name, e?.message);
  resolve();
}));
