/**
 * The bubblewrap command line for one planned sandbox. Its options are handed to bwrap through
 * a pipe (`--args FD`), never on bwrap's own argv: the child's environment (API keys) would
 * otherwise be readable by every user of the machine in `ps`. Only the command itself stays on
 * the argv (bwrap takes it nowhere else; it is the child's own argv anyway).
 *
 * Always: every namespace bwrap can unshare (user, pid, net, ipc, uts, cgroup), no
 * capabilities, a new session (no terminal to inject into), death with the parent (a kernel
 * that dies, even by `kill -9`, takes the sandbox with it), an empty environment plus what the
 * child was given, and a read-only root once every mount is in place.
 */
import type { SandboxPlan } from './plan.ts';

export interface BwrapArgsInput {
  plan: SandboxPlan;
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** where bwrap writes its JSON info (the sandbox's init pid and namespace ids) */
  infoFd: number;
  /** the program and its arguments, as run inside */
  argv: readonly string[];
}

export function bwrapArgs(input: BwrapArgsInput): { options: string[]; command: string[] } {
  const a: string[] = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'runtimectl-sandbox', '--clearenv'];
  for (const m of input.plan.mounts) {
    switch (m.kind) {
      case 'ro':
        a.push('--ro-bind', m.src, m.dest);
        break;
      case 'rw':
        a.push('--bind', m.src, m.dest);
        break;
      case 'mask-dir':
      case 'tmpfs':
        a.push('--tmpfs', m.dest);
        break;
      case 'mask-file':
        a.push('--ro-bind', '/dev/null', m.dest);
        break;
      case 'symlink':
        a.push('--symlink', m.target, m.dest);
        break;
      case 'dir':
        a.push('--dir', m.dest);
        break;
      case 'proc':
        a.push('--proc', m.dest);
        break;
      case 'dev':
        a.push('--dev', m.dest);
        break;
    }
  }
  for (const dir of input.plan.remountReadOnly) a.push('--remount-ro', dir);
  a.push('--remount-ro', '/');
  for (const [k, v] of Object.entries(input.env)) a.push('--setenv', k, v);
  a.push('--chdir', input.cwd, '--info-fd', String(input.infoFd));
  return { options: a, command: ['--', ...input.argv] };
}

/** NUL-separated, as `bwrap --args FD` reads them. */
export function encodeArgs(args: readonly string[]): Buffer {
  for (const arg of args) if (arg.includes('\0')) throw new TypeError('an argument of a sandboxed command contains a NUL byte');
  return Buffer.from(args.map((arg) => `${arg}\0`).join(''), 'utf8');
}
