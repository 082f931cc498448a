// flags: --allow-read=. --allow-write=.
// args: (none)
// cwd: tmp
// copyFile, rename, truncate, chmod, utime, link, symlink, readLink and their OS errors.
const show = async (label: string, fn: () => unknown) => {
  try {
    const value = await fn();
    console.log(label, 'ok', value === undefined ? '' : JSON.stringify(value));
  } catch (e) {
    const err = e as Error & { code?: string };
    console.log(label, err.name, err.code ?? '-', err.message);
  }
};
await Deno.writeTextFile('a.txt', 'alpha');
await Deno.mkdir('dir');
await show('copyFile', async () => { await Deno.copyFile('a.txt', 'b.txt'); return Deno.readTextFile('b.txt'); });
await show('copyFile missing', () => Deno.copyFile('nope.txt', 'b.txt'));
await show('copyFile onto dir', () => Deno.copyFile('a.txt', 'dir'));
await show('copyFile from dir', () => Deno.copyFile('dir', 'x'));
await show('copyFile url', async () => { await Deno.copyFile(new URL('a.txt', `file://${Deno.cwd()}/`), 'u.txt'); return Deno.readTextFile('u.txt'); });
await show('rename', async () => { await Deno.rename('b.txt', 'c.txt'); return [await Deno.readTextFile('c.txt'), (await Array.fromAsync(Deno.readDir('.'))).map((e) => e.name).sort()]; });
await show('rename missing', () => Deno.rename('nope', 'x'));
await show('rename over dir', () => Deno.rename('c.txt', 'dir'));
await show('rename dir into itself', () => Deno.rename('dir', 'dir/inner'));
await show('truncate', async () => { await Deno.truncate('c.txt', 2); return Deno.readTextFile('c.txt'); });
await show('truncate grow', async () => { await Deno.truncate('c.txt', 4); return Array.from(await Deno.readFile('c.txt')); });
await show('truncate default', async () => { await Deno.truncate('c.txt'); return (await Deno.stat('c.txt')).size; });
await show('truncate missing', () => Deno.truncate('nope', 1));
await show('chmod', async () => { await Deno.chmod('a.txt', 0o604); return ((await Deno.stat('a.txt')).mode ?? 0) & 0o777; });
await show('chmod missing', () => Deno.chmod('nope', 0o600));
await show('utime', async () => { await Deno.utime('a.txt', 12, 34); const s = await Deno.stat('a.txt'); return [s.atime?.getTime(), s.mtime?.getTime()]; });
await show('utime missing', () => Deno.utime('nope', 1, 1));
await show('link', async () => { await Deno.link('a.txt', 'hard.txt'); return (await Deno.stat('a.txt')).nlink; });
await show('link exists', () => Deno.link('a.txt', 'hard.txt'));
await show('link missing', () => Deno.link('nope', 'h2.txt'));
await show('symlink', () => Deno.symlink('a.txt', 'sym.txt'));
await show('symlink exists', () => Deno.symlink('a.txt', 'sym.txt'));
await show('readLink', () => Deno.readLink('sym.txt'));
await show('read through link', () => Deno.readTextFile('sym.txt'));
await show('readLink of a file', () => Deno.readLink('a.txt'));
await show('readLink missing', () => Deno.readLink('nope'));
await show('symlink dangling', async () => { await Deno.symlink('gone.txt', 'dangling.txt'); return (await Deno.lstat('dangling.txt')).isSymlink; });
await show('stat dangling', () => Deno.stat('dangling.txt'));
