// flags: --allow-run --deny-run=ls
// args: (none)
// --deny-run wins over --allow-run; env vars like LD_PRELOAD need the full, undenied grant.
try {
  await new Deno.Command('ls').output();
} catch (e) {
  console.log('ls', (e as Error).name, '|', (e as Error).message);
}
const ok = await new Deno.Command('echo', { args: ['echo allowed'] }).output();
console.log(new TextDecoder().decode(ok.stdout).trim());
try {
  await new Deno.Command('echo', { args: ['x'], env: { LD_PRELOAD: '/nonexistent.so' } }).output();
  console.log('LD_PRELOAD ran');
} catch (e) {
  console.log('LD_PRELOAD', (e as Error).name, '|', (e as Error).message);
}
for (const command of ['ls', 'echo']) {
  const st = await Deno.permissions.query({ name: 'run', command });
  console.log('query', command, st.state);
}
