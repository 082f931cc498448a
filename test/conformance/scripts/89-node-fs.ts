// flags: --allow-read=. --allow-write=.
// args: (none)
// cwd: tmp
// node:fs over the same ops as Deno's fs API: sync, callback and promise forms, fds, streams, Node's error shapes.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'fs';
const show = (label: string, fn: () => unknown) => {
  try {
    const v = fn();
    console.log(label, 'ok', v instanceof Uint8Array ? `<${v.length} bytes>` : JSON.stringify(v));
  } catch (e) {
    const x = e as Error & Record<string, unknown>;
    console.log(label, x.name, x.code, x.errno, x.syscall, x.path, x.dest, JSON.stringify(x.message));
  }
};
fs.mkdirSync('dir/sub', { recursive: true });
writeFileSync('dir/a.txt', 'alpha\n');
fs.writeFileSync('dir/b.bin', new Uint8Array([1, 2, 3, 255]));
show('readFileSync utf8', () => readFileSync('dir/a.txt', 'utf8'));
show('readFileSync buffer', () => fs.readFileSync('dir/b.bin'));
show('readFileSync hex', () => fs.readFileSync('dir/b.bin', { encoding: 'hex' }));
show('readFileSync base64', () => fs.readFileSync('dir/b.bin', 'base64'));
show('readFileSync missing', () => fs.readFileSync('dir/none.txt'));
show('readFileSync dir', () => fs.readFileSync('dir'));
show('existsSync', () => [fs.existsSync('dir/a.txt'), fs.existsSync('dir/none'), fs.existsSync('dir')]);
show('statSync', () => { const s = fs.statSync('dir/a.txt'); return [s.isFile(), s.isDirectory(), s.isSymbolicLink(), s.size, typeof s.mtimeMs, s.mtime instanceof Date]; });
show('statSync dir', () => fs.statSync('dir').isDirectory());
show('statSync missing', () => fs.statSync('dir/none'));
show('statSync no throw', () => fs.statSync('dir/none', { throwIfNoEntry: false }));
show('lstatSync missing', () => fs.lstatSync('dir/none'));
show('readdirSync', () => fs.readdirSync('dir').sort());
show('readdirSync types', () => fs.readdirSync('dir', { withFileTypes: true }).map((d) => `${d.name}:${d.isFile()}:${d.isDirectory()}`).sort());
show('readdirSync missing', () => fs.readdirSync('nodir'));
show('readdirSync file', () => fs.readdirSync('dir/a.txt'));
show('appendFileSync', () => { fs.appendFileSync('dir/a.txt', 'beta\n'); return fs.readFileSync('dir/a.txt', 'utf8'); });
show('writeFileSync wx', () => fs.writeFileSync('dir/a.txt', 'x', { flag: 'wx' }));
show('writeFileSync missing dir', () => fs.writeFileSync('nodir/x.txt', 'x'));
show('mkdirSync', () => fs.mkdirSync('dir/m'));
show('mkdirSync exists', () => fs.mkdirSync('dir/m'));
show('mkdirSync recursive exists', () => fs.mkdirSync('dir/sub', { recursive: true }));
show('renameSync', () => { fs.renameSync('dir/b.bin', 'dir/c.bin'); return fs.existsSync('dir/c.bin'); });
show('renameSync missing', () => fs.renameSync('dir/none', 'dir/x'));
show('copyFileSync', () => { fs.copyFileSync('dir/a.txt', 'dir/sub/copy.txt'); return fs.readFileSync('dir/sub/copy.txt', 'utf8'); });
show('copyFileSync excl', () => fs.copyFileSync('dir/a.txt', 'dir/sub/copy.txt', fs.constants.COPYFILE_EXCL));
show('copyFileSync missing', () => fs.copyFileSync('dir/none', 'dir/sub/x.txt'));
show('unlinkSync', () => { fs.unlinkSync('dir/sub/copy.txt'); return fs.existsSync('dir/sub/copy.txt'); });
show('unlinkSync missing', () => fs.unlinkSync('dir/sub/copy.txt'));
show('rmdirSync', () => fs.rmdirSync('dir/m'));
show('rmdirSync missing', () => fs.rmdirSync('dir/m'));
show('rmdirSync not empty', () => fs.rmdirSync('dir'));
show('rmdirSync file', () => fs.rmdirSync('dir/a.txt'));
show('rmSync dir without recursive', () => fs.rmSync('dir/sub'));
show('rmSync missing', () => fs.rmSync('dir/none'));
show('rmSync force', () => fs.rmSync('dir/none', { force: true }));
show('symlinkSync', () => fs.symlinkSync('a.txt', 'dir/link'));
show('readlinkSync', () => fs.readlinkSync('dir/link'));
show('readlinkSync not a link', () => fs.readlinkSync('dir/a.txt'));
show('lstat link', () => [fs.lstatSync('dir/link').isSymbolicLink(), fs.statSync('dir/link').isFile()]);
show('realpathSync', () => fs.realpathSync('dir/link').endsWith('/dir/a.txt'));
show('realpathSync missing', () => fs.realpathSync('dir/none'));
show('chmodSync', () => { fs.chmodSync('dir/a.txt', 0o640); return (fs.statSync('dir/a.txt').mode & 0o777).toString(8); });
show('accessSync', () => fs.accessSync('dir/a.txt', fs.constants.R_OK | fs.constants.W_OK));
show('accessSync missing', () => fs.accessSync('dir/none'));
show('truncateSync', () => { fs.truncateSync('dir/a.txt', 3); return fs.readFileSync('dir/a.txt', 'utf8'); });
show('utimesSync', () => { fs.utimesSync('dir/a.txt', 1000, 2000); return fs.statSync('dir/a.txt').mtimeMs; });
show('fd read', () => { const fd = fs.openSync('dir/a.txt', 'r'); const b = Buffer.alloc(2); const n = fs.readSync(fd, b, 0, 2, 1); fs.closeSync(fd); return [n, b.toString()]; });
show('fd write', () => { const fd = fs.openSync('dir/fd.txt', 'w'); fs.writeSync(fd, 'abc'); fs.writeSync(fd, Buffer.from('def')); fs.closeSync(fd); return fs.readFileSync('dir/fd.txt', 'utf8'); });
show('fd append', () => { const fd = fs.openSync('dir/fd.txt', 'a'); fs.writeSync(fd, 'ghi'); fs.closeSync(fd); return fs.readFileSync('dir/fd.txt', 'utf8'); });
show('fd fstat', () => { const fd = fs.openSync('dir/fd.txt', 'r'); const size = fs.fstatSync(fd).size; fs.closeSync(fd); return size; });
show('openSync missing', () => fs.openSync('dir/none', 'r'));
show('openSync bad flags', () => fs.openSync('dir/a.txt', 'q'));
show('closeSync twice', () => { const fd = fs.openSync('dir/a.txt'); fs.closeSync(fd); fs.closeSync(fd); });
show('readSync unknown fd', () => fs.readSync(987654, Buffer.alloc(1)));
show('readFileSync unknown fd', () => fs.readFileSync(987654));
show('path type', () => fs.readFileSync({} as string));
show('null byte', () => fs.readFileSync('a\0b'));
show('mkdtempSync', () => { const d = fs.mkdtempSync('dir/tmp-'); return [/^dir\/tmp-[A-Za-z0-9]{6}$/.test(d), fs.statSync(d).isDirectory()]; });
show('URL path', () => fs.readFileSync(new URL(`file://${Deno.cwd()}/dir/a.txt`), 'utf8'));
console.log('promises', JSON.stringify([
  await fsp.readFile('dir/a.txt', 'utf8'),
  await fsp.readFile('dir/none').catch((e) => `${e.code} ${e.message}`),
  (await fsp.readdir('dir')).filter((n) => !n.startsWith('tmp-')).sort(),
  await fsp.stat('dir/a.txt').then((s) => s.size),
  await fsp.mkdir('dir/p/q', { recursive: true }).then((first) => typeof first),
  await fsp.writeFile('dir/p/q/w.txt', 'promised').then(() => fs.readFileSync('dir/p/q/w.txt', 'utf8')),
  await fsp.rm('dir/p', { recursive: true }).then(() => fs.existsSync('dir/p')),
]));
const handle = await fsp.open('dir/fd.txt', 'r');
const { bytesRead, buffer } = await handle.read(Buffer.alloc(4), 0, 4, 2);
console.log('file handle', bytesRead, buffer.toString(), (await handle.stat()).size);
await handle.close();
await new Promise<void>((resolve) => {
  fs.readFile('dir/a.txt', 'utf8', (err, data) => {
    console.log('callback readFile', err, JSON.stringify(data));
    fs.stat('dir/none', (err2) => {
      console.log('callback stat', err2?.code, err2?.message);
      resolve();
    });
  });
});
await new Promise<void>((resolve) => fs.writeFile('dir/cb.txt', 'cb', (err) => { console.log('callback writeFile', err, fs.readFileSync('dir/cb.txt', 'utf8')); resolve(); }));
let streamed = '';
for await (const chunk of fs.createReadStream('dir/fd.txt', { encoding: 'utf8', start: 1, end: 4 })) streamed += chunk;
console.log('read stream', JSON.stringify(streamed));
const out = fs.createWriteStream('dir/ws.txt');
out.write('one,');
out.end('two');
await new Promise((resolve) => out.on('finish', resolve));
console.log('write stream', fs.readFileSync('dir/ws.txt', 'utf8'));
