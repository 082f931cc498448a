// flags: --allow-env=TMPDIR
// args: (none)
// node:os: what Deno answers without a permission, tmpdir through the env grant, and the host
// facts Deno gates behind --allow-sys (never granted in the sandbox): NotCapable.
import os from 'node:os';
const show = (label: string, fn: () => unknown) => {
  try {
    const v = fn();
    console.log(label, 'ok', typeof v === 'string' || typeof v === 'boolean' ? JSON.stringify(v) : typeof v);
  } catch (e) {
    console.log(label, (e as Error).name, e instanceof Deno.errors.NotCapable, (e as Error).message);
  }
};
show('platform', () => os.platform());
show('type', () => os.type());
show('arch', () => os.arch());
show('machine', () => os.machine());
show('endianness', () => os.endianness());
show('EOL', () => os.EOL);
show('devNull', () => os.devNull);
show('availableParallelism', () => os.availableParallelism() > 0);
show('tmpdir', () => os.tmpdir());
show('constants', () => [os.constants.signals.SIGTERM, os.constants.errno.ENOENT].join(','));
for (const name of ['homedir', 'hostname', 'cpus', 'totalmem', 'freemem', 'uptime', 'loadavg', 'release', 'version', 'networkInterfaces', 'userInfo'] as const) {
  show(name, () => (os[name] as () => unknown)());
}
