// flags: --allow-read=. --allow-write=.
// args: (none)
// cwd: tmp
// The *Sync file system variants: the same results and errors as their async twins.
const show = (label: string, fn: () => unknown) => {
  try {
    const value = fn();
    console.log(label, 'ok', value === undefined ? '' : JSON.stringify(value));
  } catch (e) {
    const err = e as Error & { code?: string };
    console.log(label, err.name, err.code ?? '-', err.message);
  }
};
show('writeTextFileSync', () => Deno.writeTextFileSync('a.txt', 'hello\n'));
show('readTextFileSync', () => Deno.readTextFileSync('a.txt'));
show('append', () => Deno.writeTextFileSync('a.txt', 'more\n', { append: true }));
show('readTextFileSync again', () => Deno.readTextFileSync('./a.txt'));
show('writeFileSync', () => Deno.writeFileSync('b.bin', new Uint8Array([1, 2, 255])));
show('readFileSync', () => Array.from(Deno.readFileSync('b.bin')));
show('createNew exists', () => Deno.writeTextFileSync('a.txt', 'x', { createNew: true }));
show('create false', () => Deno.writeTextFileSync('none.txt', 'x', { create: false }));
show('mkdirSync', () => Deno.mkdirSync('d/e', { recursive: true }));
show('mkdirSync exists', () => Deno.mkdirSync('d'));
show('statSync', () => { const s = Deno.statSync('a.txt'); return [s.isFile, s.isDirectory, s.size]; });
show('lstatSync dir', () => Deno.lstatSync('d').isDirectory);
show('statSync missing', () => Deno.statSync('missing'));
show('readDirSync', () => [...Deno.readDirSync('.')].map((e) => `${e.name}:${e.isFile ? 'f' : e.isDirectory ? 'd' : 'l'}`).sort());
show('readDirSync missing', () => [...Deno.readDirSync('missing')]);
show('realPathSync', () => Deno.realPathSync('d/e').endsWith('/d/e'));
show('readTextFileSync dir', () => Deno.readTextFileSync('d'));
show('removeSync nonempty', () => Deno.removeSync('d'));
show('removeSync recursive', () => Deno.removeSync('d', { recursive: true }));
show('removeSync missing', () => Deno.removeSync('d'));
show('copyFileSync', () => { Deno.copyFileSync('a.txt', 'c.txt'); return Deno.readTextFileSync('c.txt'); });
show('renameSync', () => { Deno.renameSync('c.txt', 'r.txt'); return [Deno.readTextFileSync('r.txt').length, [...Deno.readDirSync('.')].some((e) => e.name === 'c.txt')]; });
show('truncateSync', () => { Deno.truncateSync('r.txt', 3); return Deno.readTextFileSync('r.txt'); });
show('chmodSync', () => { Deno.chmodSync('r.txt', 0o640); return (Deno.statSync('r.txt').mode ?? 0) & 0o777; });
show('utimeSync', () => { Deno.utimeSync('r.txt', 1_000, new Date(2_000_000)); const s = Deno.statSync('r.txt'); return [s.atime?.getTime(), s.mtime?.getTime()]; });
show('linkSync', () => { Deno.linkSync('r.txt', 'h.txt'); return Deno.statSync('h.txt').nlink; });
show('symlinkSync', () => Deno.symlinkSync('r.txt', 'l.txt'));
show('readLinkSync', () => Deno.readLinkSync('l.txt'));
show('lstatSync link', () => Deno.lstatSync('l.txt').isSymlink);
show('readLinkSync file', () => Deno.readLinkSync('r.txt'));
show('makeTempDirSync', () => { const d = Deno.makeTempDirSync({ dir: '.', prefix: 'p-', suffix: '-s' }); return [/^\.\/p-[0-9a-f]{1,16}-s$/.test(d), (Deno.statSync(d).mode ?? 0) & 0o777]; });
show('makeTempFileSync', () => { const f = Deno.makeTempFileSync({ dir: '.' }); return [/^\.\/[0-9a-f]{1,16}$/.test(f), Deno.statSync(f).size, (Deno.statSync(f).mode ?? 0) & 0o777]; });
show('makeTempDirSync bad prefix', () => Deno.makeTempDirSync({ dir: '.', prefix: 'a/b' }));
show('makeTempFileSync missing dir', () => Deno.makeTempFileSync({ dir: 'nowhere' }));
