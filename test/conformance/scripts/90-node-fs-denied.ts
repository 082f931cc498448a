// flags: --allow-read=./fixtures/dir --allow-write=./fixtures/dir/sub
// args: (none)
// node:fs refused exactly where Deno refuses: NotCapable with Deno's message, thrown by the sync
// API, handed to callbacks, rejected by promises; existsSync throws it too, as in Deno.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
const show = (label: string, fn: () => unknown) => {
  try {
    const v = fn();
    console.log(label, 'ok', typeof v === 'string' ? JSON.stringify(v) : typeof v);
  } catch (e) {
    const x = e as Error & Record<string, unknown>;
    console.log(label, x.name, x instanceof Deno.errors.NotCapable, x.code, JSON.stringify(x.message.replace(/t-[A-Za-z0-9]{6}/, 't-XXXXXX')));
  }
};
show('read granted', () => fs.readFileSync('fixtures/dir/a.txt', 'utf8'));
show('read outside', () => fs.readFileSync('fixtures/hello.txt'));
show('read with ..', () => fs.readFileSync('fixtures/dir/../hello.txt'));
show('read absolute outside', () => fs.readFileSync('/etc/hostname'));
show('existsSync outside', () => fs.existsSync('fixtures/hello.txt'));
show('statSync outside', () => fs.statSync('fixtures/secret'));
show('readdirSync outside', () => fs.readdirSync('fixtures'));
show('realpathSync outside', () => fs.realpathSync('fixtures/secret/key.txt'));
show('write outside', () => fs.writeFileSync('fixtures/dir/new.txt', 'x'));
show('append outside', () => fs.appendFileSync('fixtures/dir/a.txt', 'x'));
show('mkdir outside', () => fs.mkdirSync('fixtures/dir/newdir'));
show('unlink outside', () => fs.unlinkSync('fixtures/dir/a.txt'));
show('rm outside', () => fs.rmSync('fixtures/dir/a.txt'));
show('rename outside', () => fs.renameSync('fixtures/dir/a.txt', 'fixtures/dir/sub/a.txt'));
show('copyFile into grant from outside', () => fs.copyFileSync('fixtures/hello.txt', 'fixtures/dir/sub/h.txt'));
show('openSync read outside', () => fs.openSync('fixtures/hello.txt', 'r'));
show('openSync write outside', () => fs.openSync('fixtures/dir/a.txt', 'w'));
show('openSync r+ outside', () => fs.openSync('fixtures/dir/a.txt', 'r+'));
show('symlink', () => fs.symlinkSync('../a.txt', 'fixtures/dir/sub/l'));
show('chmod outside', () => fs.chmodSync('fixtures/dir/a.txt', 0o600));
show('mkdtemp outside', () => fs.mkdtempSync('fixtures/dir/t-').length);
console.log('promise', await fsp.readFile('fixtures/hello.txt').then(() => 'read', (e) => `${e.name} ${e.message}`));
console.log('promise write', await fsp.writeFile('fixtures/x.txt', 'x').then(() => 'written', (e) => `${e.name} ${e.message}`));
await new Promise<void>((resolve) => fs.readFile('fixtures/hello.txt', (err) => { console.log('callback', err?.name, err?.message); resolve(); }));
await new Promise<void>((resolve) => {
  const stream = fs.createReadStream('fixtures/hello.txt');
  stream.on('error', (e) => { console.log('read stream', e.name, e.message); resolve(); });
  stream.on('data', () => { console.log('read stream data'); resolve(); });
});
