/**
 * `node:os`: what Deno answers without a permission (platform, arch, EOL, endianness,
 * machine, availableParallelism), `tmpdir()` through `Deno.env` (an env grant for TMPDIR, as
 * in Deno), and the host facts Deno gates behind `--allow-sys` (hostname, cpus, memory,
 * uptime, loadavg, release, network interfaces, user info, home directory): the sandbox never
 * grants `sys`, so they throw Deno's NotCapable through the broker's `sys.info` op.
 */
import { callSync } from '../../host.ts';
import { denoNamespace } from '../../deno/namespace-ref.ts';
import { constants } from './constants.ts';

interface DenoLike {
  build: { arch: string };
  env: { get(name: string): string | undefined };
}

const deno = denoNamespace() as unknown as DenoLike;

const sys = (kind: string) => (): never => callSync<never>('sys.info', { kind });

function arch(): string {
  const a = deno.build.arch;
  return a === 'x86_64' ? 'x64' : a === 'aarch64' ? 'arm64' : a;
}

function tmpdir(): string {
  let path = deno.env.get('TMPDIR') ?? deno.env.get('TMP') ?? deno.env.get('TEMP') ?? '/tmp';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

const os = {
  EOL: '\n',
  devNull: '/dev/null',
  constants,
  platform: () => 'linux',
  type: () => 'Linux',
  arch,
  machine: () => deno.build.arch,
  endianness: () => 'LE',
  availableParallelism: () => callSync<number>('sys.parallelism', {}),
  tmpdir,
  homedir: sys('homedir'),
  hostname: sys('hostname'),
  cpus: sys('cpus'),
  totalmem: sys('systemMemoryInfo'),
  freemem: sys('systemMemoryInfo'),
  uptime: sys('osUptime'),
  loadavg: sys('loadavg'),
  release: sys('osRelease'),
  version: sys('osRelease'),
  networkInterfaces: sys('networkInterfaces'),
  userInfo: sys('uid'),
  getPriority: sys('getPriority'),
  setPriority: sys('setPriority'),
};
Object.defineProperty(os, 'default', { value: os, enumerable: false });

export const modules = { os };
