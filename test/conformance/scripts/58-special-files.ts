// flags: -R -W
// args: (none)
// cwd: tmp
// links: environ=/proc/self/environ procself=/proc/self out=/dev/stdout devnull=/dev/null
// Special files need --allow-all for every op, by the path the op really reaches (a link in a
// granted folder to /proc/self/environ is that file); a few harmless devices stay open.
const show = (e: unknown) => `${(e as Error).name} | ${(e as Error).message.replace(/\/proc\/\d+\//g, '/proc/PID/')}`;
const tries: [string, () => Promise<unknown>][] = [
  ['read /proc/self/environ', () => Deno.readTextFile('/proc/self/environ')],
  ['read //proc/self/environ', () => Deno.readTextFile('//proc/self/environ')],
  ['read /proc//self/environ/', () => Deno.readTextFile('/proc//self/environ/')],
  ['read /proc/./self/../self/environ', () => Deno.readTextFile('/proc/./self/../self/environ')],
  ['read /dev/../proc/self/cmdline', () => Deno.readTextFile('/dev/../proc/self/cmdline')],
  ['read /proc/self/fd/0', () => Deno.readFile('/proc/self/fd/0')],
  ['read /sys/kernel/hostname', () => Deno.readTextFile('/sys/kernel/hostname')],
  ['read /dev/stdin', () => Deno.readTextFile('/dev/stdin')],
  ['readDir /proc', async () => { for await (const e of Deno.readDir('/proc')) return e.name; }],
  ['readDir /proc/self/fd', async () => { for await (const e of Deno.readDir('/proc/self/fd')) return e.name; }],
  ['stat /proc/self', () => Deno.stat('/proc/self')],
  ['lstat /proc/self', () => Deno.lstat('/proc/self')],
  ['realPath /proc/self', () => Deno.realPath('/proc/self')],
  ['stat /dev', () => Deno.stat('/dev')],
  ['stat /sys', () => Deno.stat('/sys')],
  ['stat /dev/stdout', () => Deno.stat('/dev/stdout')],
  ['stat /dev/full', () => Deno.stat('/dev/full')],
  ['write /dev/stdout', () => Deno.writeTextFile('/dev/stdout', 'INJECTED\n')],
  ['write /dev/stderr', () => Deno.writeTextFile('/dev/stderr', 'INJECTED\n')],
  ['write /proc/self/fd/1', () => Deno.writeTextFile('/proc/self/fd/1', 'INJECTED\n')],
  ['mkdir /dev/shm/rtc-conformance', () => Deno.mkdir('/dev/shm/rtc-conformance')],
  ['read environ (a link to /proc/self/environ)', () => Deno.readTextFile('environ')],
  ['read procself/environ (a folder link to /proc/self)', () => Deno.readTextFile('procself/environ')],
  ['lstat the link itself', async () => (await Deno.lstat('environ')).isSymlink],
  ['read /dev/null', () => Deno.readTextFile('/dev/null')],
  ['write /dev/null', () => Deno.writeTextFile('/dev/null', 'gone')],
  ['read devnull (a link to /dev/null)', () => Deno.readTextFile('devnull')],
  ['stat /dev/zero', async () => (await Deno.stat('/dev/zero')).isCharDevice],
  ['stat /dev/urandom', async () => (await Deno.stat('/dev/urandom')).isFile],
  ['stat /dev/random', async () => (await Deno.stat('/dev/random')).isDirectory],
];
for (const [name, f] of tries) {
  try {
    const r = await f();
    console.log(name, 'ok', JSON.stringify(r));
  } catch (e) {
    console.log(name, show(e));
  }
}
