// flags: --allow-read=./fixtures --allow-env=HOME,PATH
// args: (none)
// Deno.permissions.revoke narrows the grant for the rest of the run: reads and env.get are
// refused afterwards, and paths beneath a revoked folder query "prompt" too.
const state = async (d: Deno.PermissionDescriptor) => (await Deno.permissions.query(d)).state;
const read = async (p: string) => {
  try {
    await Deno.readTextFile(p);
    return 'read';
  } catch (e) {
    return `${(e as Error).name} | ${(e as Error).message}`;
  }
};
console.log('before', await state({ name: 'read', path: './fixtures' }), await state({ name: 'read', path: './fixtures/hello.txt' }), await read('./fixtures/hello.txt'));
console.log('revoke a file beneath the grant ->', (await Deno.permissions.revoke({ name: 'read', path: './fixtures/granted/x.txt' })).state);
console.log('after', await state({ name: 'read', path: './fixtures' }), await state({ name: 'read', path: './fixtures/hello.txt' }), await state({ name: 'read', path: './fixtures/granted' }));
console.log(await read('./fixtures/hello.txt'));
console.log(await read('./fixtures/utf8.txt'));
console.log('env before', Deno.env.get('HOME') !== undefined, await state({ name: 'env', variable: 'HOME' }));
console.log('revoke env HOME ->', (await Deno.permissions.revoke({ name: 'env', variable: 'HOME' })).state);
try {
  Deno.env.get('HOME');
  console.log('env.get HOME after revoke: allowed');
} catch (e) {
  console.log('env.get HOME after revoke:', (e as Error).name, '|', (e as Error).message);
}
console.log('PATH still', Deno.env.get('PATH') !== undefined, await state({ name: 'env', variable: 'PATH' }));
console.log('revoke env ->', (await Deno.permissions.revoke({ name: 'env' })).state);
try {
  Deno.env.get('PATH');
  console.log('env.get after revoking env: allowed');
} catch (e) {
  console.log('env.get after revoking env:', (e as Error).name, '|', (e as Error).message);
}
console.log('request read again ->', (await Deno.permissions.request({ name: 'read', path: './fixtures' })).state);
