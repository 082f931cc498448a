// flags: --allow-read=. --allow-env=A
// args: (none)
// Permission descriptors validated as Deno validates them; a status is an EventTarget, one per descriptor.
const show = (label: string, fn: () => unknown) => {
  try {
    console.log(label, 'ok', fn());
  } catch (e) {
    console.log(label, (e as Error).name, (e as Error).message);
  }
};
const q = (d: unknown) => () => Deno.permissions.querySync(d as Deno.PermissionDescriptor);
show('unknown name', q({ name: 'foo' }));
show('undefined', q(undefined));
show('null', q(null));
show('empty', q({}));
show('net :', q({ name: 'net', host: ':' }));
show('net space', q({ name: 'net', host: 'a b' }));
show('net port', q({ name: 'net', host: 'x:99999' }));
show('sys bad kind', q({ name: 'sys', kind: 'abc' }));
show('sys ok', q({ name: 'sys', kind: 'hostname' }));
show('read number', q({ name: 'read', path: 5 }));
show('read url', q({ name: 'read', path: new URL('file:///tmp') }));
show('read http url', q({ name: 'read', path: new URL('http://x/') }));
show('env', q({ name: 'env', variable: 'A' }));
show('ffi', q({ name: 'ffi' }));
show('new Permissions', () => new (Deno.Permissions as unknown as new () => unknown)());
show('new PermissionStatus', () => new (Deno.PermissionStatus as unknown as new () => unknown)());
const status = Deno.permissions.querySync({ name: 'read', path: '.' });
console.log(status, status instanceof EventTarget, Object.keys(status), status.onchange);
let changed = false;
status.addEventListener('change', () => { changed = true; });
status.dispatchEvent(new Event('change'));
console.log('change', changed, Deno.permissions.querySync({ name: 'read', path: '.' }) === status, Deno.permissions.querySync({ name: 'read', path: './' }) === status);
console.log((await Deno.permissions.query({ name: 'read', path: '.' })) === status, Deno.permissions.querySync({ name: 'env', variable: 'A' }) !== Deno.permissions.querySync({ name: 'env', variable: 'B' }));
const revoked = Deno.permissions.revokeSync({ name: 'read', path: '.' });
console.log(revoked === status, status.state);
console.log(Deno.permissions, Deno.permissions.requestSync({ name: 'net' }));
for (const method of ['query', 'request', 'revoke'] as const) {
  try {
    await (Deno.permissions[method] as unknown as (d: unknown) => Promise<unknown>)(undefined);
  } catch (e) {
    console.log(method, (e as Error).name, (e as Error).message);
  }
}
