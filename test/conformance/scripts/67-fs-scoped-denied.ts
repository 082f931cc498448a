// flags: --allow-read --allow-write=./fixtures/dir/sub
// args: (none)
// Two-path ops check each path in Deno's order; symlink needs unscoped read and write.
const show = async (label: string, fn: () => unknown) => {
  try {
    await fn();
    console.log(label, 'allowed');
  } catch (e) {
    console.log(label, (e as Error).name, (e as Error).message);
  }
};
await show('copyFile to outside', () => Deno.copyFile('fixtures/hello.txt', 'fixtures/copy.txt'));
await show('rename from outside', () => Deno.rename('fixtures/hello.txt', 'fixtures/dir/sub/h.txt'));
await show('link from outside', () => Deno.link('fixtures/hello.txt', 'fixtures/dir/sub/h.txt'));
await show('symlink scoped write', () => Deno.symlink('../a.txt', 'fixtures/dir/sub/l.txt'));
await show('makeTempDir default', () => Deno.makeTempDir());
await show('makeTempFile outside', () => Deno.makeTempFile({ dir: 'fixtures', prefix: 'x' }));
await show('truncate outside', () => Deno.truncate('fixtures/hello.txt'));
await show('chmod outside', () => Deno.chmod('fixtures/hello.txt', 0o644));
await show('utime outside', () => Deno.utime('fixtures/hello.txt', 1, 2));
await show('chown outside', () => Deno.chown('fixtures/hello.txt', null, null));
await show('open write outside', () => Deno.open('fixtures/hello.txt', { append: true }));
await show('create outside', () => Deno.create('fixtures/new.txt'));
