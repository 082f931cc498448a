// flags: -A --deny-read=./fixtures/secret --deny-env=CONF_SECRET --deny-net=example.com --deny-run=ls
// args: (none)
// Deno.permissions.query with -A and --deny-*: denied where denied, partial on the whole kind.
const descriptors: Deno.PermissionDescriptor[] = [
  { name: 'read', path: 'fixtures/secret' },
  { name: 'read', path: 'fixtures/secret/key.txt' },
  { name: 'read', path: 'fixtures/hello.txt' },
  { name: 'read' },
  { name: 'env', variable: 'CONF_SECRET' },
  { name: 'env', variable: 'CONF_A' },
  { name: 'env' },
  { name: 'net', host: 'example.com' },
  { name: 'net', host: 'example.com:443' },
  { name: 'net', host: 'api.example.com' },
  { name: 'net' },
  { name: 'run', command: 'ls' },
  { name: 'run', command: 'echo' },
  { name: 'run' },
  { name: 'write' },
];
for (const d of descriptors) {
  const st = await Deno.permissions.query(d);
  const { name, ...rest } = d as unknown as Record<string, string>;
  console.log(name, JSON.stringify(rest), st.state, st.partial);
}
