// flags: --allow-run=echo
// args: (none)
// With a partial --allow-run, spawning with LD_PRELOAD / LD_LIBRARY_PATH is refused; empty is fine.
for (const env of [{ LD_PRELOAD: '/nonexistent.so' }, { LD_LIBRARY_PATH: '/tmp' }, { LD_PRELOAD: '' }, { HARMLESS: '1' }]) {
  try {
    const out = await new Deno.Command('echo', { args: ['ran'], env }).output();
    console.log(JSON.stringify(env), new TextDecoder().decode(out.stdout).trim());
  } catch (e) {
    console.log(JSON.stringify(env), (e as Error).name, '|', (e as Error).message);
  }
}
