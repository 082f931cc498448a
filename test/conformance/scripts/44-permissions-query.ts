// flags: --allow-read=./fixtures --allow-write=./fixtures/dir --allow-env=CONF_A --allow-run=echo --allow-net=127.0.0.1
// args: (none)
// Deno.permissions.query for every permission kind: granted or prompt (never asks, never changes).
const descriptors: Deno.PermissionDescriptor[] = [
  { name: 'read', path: './fixtures' },
  { name: 'read', path: 'fixtures/hello.txt' },
  { name: 'read', path: '.' },
  { name: 'read' },
  { name: 'write', path: 'fixtures/dir/a.txt' },
  { name: 'write', path: 'fixtures' },
  { name: 'write' },
  { name: 'env', variable: 'CONF_A' },
  { name: 'env', variable: 'CONF_B' },
  { name: 'env' },
  { name: 'run', command: 'echo' },
  { name: 'run', command: 'ls' },
  { name: 'run' },
  { name: 'net', host: '127.0.0.1' },
  { name: 'net', host: '127.0.0.1:8080' },
  { name: 'net', host: 'localhost' },
  { name: 'net' },
];
for (const d of descriptors) {
  const st = await Deno.permissions.query(d);
  const { name, ...rest } = d as unknown as Record<string, string>;
  console.log(name, JSON.stringify(rest), st.state, st.partial);
}
const st = await Deno.permissions.query({ name: 'read', path: 'fixtures' });
console.log(typeof st, 'state' in st, 'partial' in st);
