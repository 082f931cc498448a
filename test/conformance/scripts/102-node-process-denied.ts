// flags: (none)
// args: (none)
// Without grants: process.env is Deno.env (NotCapable per variable, and for a listing),
// child_process stops at its NODE_V8_COVERAGE read, the sys facts are NotCapable.
import process from 'node:process';
import cp from 'node:child_process';
const show = (label: string, fn: () => unknown) => {
  try {
    console.log(label, 'ok', JSON.stringify(fn()));
  } catch (e) {
    console.log(label, (e as Error).name, e instanceof Deno.errors.NotCapable, (e as Error).message);
  }
};
show('env read', () => process.env.HOME);
show('env in', () => 'HOME' in process.env);
show('env keys', () => Object.keys(process.env).length);
show('env write', () => { process.env.X = '1'; });
show('env delete', () => { delete process.env.X; });
show('spawnSync', () => cp.spawnSync('echo', ['x'], { env: {} }));
show('exec', () => cp.exec('echo x'));
show('getuid', () => process.getuid!());
show('getgid', () => process.getgid!());
show('umask', () => process.umask());
show('dlopen', () => (process as unknown as { dlopen(m: object, f: string): void }).dlopen({}, '/tmp/x.so'));
show('binding', () => (process as unknown as { binding(n: string): object }).binding('fs'));
show('platform', () => process.platform);
