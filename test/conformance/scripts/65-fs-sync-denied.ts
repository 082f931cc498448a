// flags: --allow-read=./fixtures/dir --allow-write=./fixtures/dir/sub
// args: (none)
// Sync variants are checked exactly as their async twins: NotCapable with Deno's message.
const show = (label: string, fn: () => unknown) => {
  try {
    fn();
    console.log(label, 'allowed');
  } catch (e) {
    console.log(label, (e as Error).name, e instanceof Deno.errors.NotCapable, (e as Error).message);
  }
};
show('readTextFileSync', () => Deno.readTextFileSync('fixtures/hello.txt'));
show('readFileSync', () => Deno.readFileSync('fixtures/bytes.bin'));
show('readDirSync', () => Deno.readDirSync('fixtures'));
show('statSync', () => Deno.statSync('fixtures/hello.txt'));
show('lstatSync', () => Deno.lstatSync('fixtures/secret'));
show('realPathSync', () => Deno.realPathSync('fixtures/secret/key.txt'));
show('writeTextFileSync', () => Deno.writeTextFileSync('fixtures/dir/new.txt', 'x'));
show('writeFileSync', () => Deno.writeFileSync('fixtures/x.bin', new Uint8Array([1])));
show('mkdirSync', () => Deno.mkdirSync('fixtures/dir/newdir'));
show('removeSync', () => Deno.removeSync('fixtures/dir/a.txt'));
show('copyFileSync read', () => Deno.copyFileSync('fixtures/hello.txt', 'fixtures/dir/sub/c.txt'));
show('copyFileSync write', () => Deno.copyFileSync('fixtures/dir/a.txt', 'fixtures/dir/c.txt'));
show('renameSync', () => Deno.renameSync('fixtures/dir/a.txt', 'fixtures/dir/sub/a.txt'));
show('chmodSync', () => Deno.chmodSync('fixtures/dir/a.txt', 0o600));
show('truncateSync', () => Deno.truncateSync('fixtures/dir/a.txt'));
show('utimeSync', () => Deno.utimeSync('fixtures/dir/a.txt', 1, 1));
show('symlinkSync', () => Deno.symlinkSync('a.txt', 'fixtures/dir/sub/l.txt'));
show('readLinkSync', () => Deno.readLinkSync('fixtures/hello.txt'));
show('linkSync', () => Deno.linkSync('fixtures/dir/a.txt', 'fixtures/dir/sub/h.txt'));
show('makeTempDirSync default', () => Deno.makeTempDirSync());
show('makeTempFileSync dir', () => Deno.makeTempFileSync({ dir: 'fixtures/dir' }));
show('openSync', () => Deno.openSync('fixtures/hello.txt'));
show('openSync write', () => Deno.openSync('fixtures/dir/a.txt', { write: true }));
show('createSync', () => Deno.createSync('fixtures/dir/new.txt'));
show('async twin', () => Deno.readTextFile('fixtures/hello.txt').catch((e) => console.log('async', e.name, e.message)));
