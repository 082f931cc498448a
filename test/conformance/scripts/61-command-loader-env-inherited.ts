// flags: --allow-run=sh --allow-env
// args: (none)
// Loader variables (LD_*, DYLD_*, any case) need the whole --allow-run in the environment the
// child really gets: inherited through Deno.env.set as much as passed in `env`.
const run = async (label: string, options: Deno.CommandOptions) => {
  try {
    const out = await new Deno.Command('sh', { args: ['-c', 'echo "[$LD_PRELOAD]"'], ...options }).output();
    console.log(label, 'ran', new TextDecoder().decode(out.stdout).trim());
  } catch (e) {
    console.log(label, (e as Error).name, '|', (e as Error).message);
  }
};
await run('nothing set', {});
Deno.env.set('LD_PRELOAD', '/nonexistent/preload.so');
await run('inherited LD_PRELOAD', {});
await run('inherited, but env sets it empty', { env: { LD_PRELOAD: '' } });
await run('inherited, but clearEnv', { clearEnv: true });
Deno.env.delete('LD_PRELOAD');
Deno.env.set('ld_audit', '/x.so');
await run('inherited lowercase ld_audit', {});
Deno.env.delete('ld_audit');
await run('env DYLD_INSERT_LIBRARIES and LD_LIBRARY_PATH', { env: { DYLD_INSERT_LIBRARIES: '/x', LD_LIBRARY_PATH: '/y' } });
await run('clearEnv with env LD_AUDIT', { clearEnv: true, env: { LD_AUDIT: '/x.so' } });
await run('env LD_BIND_NOW', { env: { LD_BIND_NOW: '1' } });
await run('back to nothing', {});
