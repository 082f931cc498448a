// @attack: granted --allow-run=sh and all of env, gets a loader variable (LD_PRELOAD,
// @attack: LD_AUDIT, LD_LIBRARY_PATH, DYLD_INSERT_LIBRARIES, lowercase, with spaces) into a
// @attack: child: through Deno.env.set and an inherited environment, through `env`, through
// @attack: clearEnv with `env`. The child reports what it got: any loader variable reaching it
// @attack: is an escape (with a real library that is code running in every child).
// @expect: contained
// @tier: trusted
// @flags: --allow-run=sh --allow-env
// @env: PATH=/usr/bin:/bin
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
// what the child got: every loader variable with a value (an empty one is harmless, and Deno passes it)
const probe = ['-c', 'env | grep -i -E "^(LD_|DYLD_)[^=]*=.+" || true'];
async function noLoader(label, options) {
  try {
    const out = await new Deno.Command('sh', { args: probe, ...options }).output();
    const seen = new TextDecoder().decode(out.stdout).trim();
    if (seen !== '') {
      bad = true;
      console.log(`${MARK} via ${label}: the child got ${seen.replace(/\n/g, ' ')}`);
    }
  } catch (e) {
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
for (const name of ['LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'ld_preload', 'Ld_Preload', 'DYLD_INSERT_LIBRARIES', 'LD_']) {
  Deno.env.set(name, '/nonexistent/evil.so');
  await noLoader(`inherited ${name}`, {});
  await noLoader(`inherited ${name}, other env given`, { env: { OTHER: '1' } });
  Deno.env.delete(name);
  await noLoader(`env ${name}`, { env: { [name]: '/nonexistent/evil.so' } });
  await noLoader(`clearEnv + env ${name}`, { clearEnv: true, env: { [name]: '/nonexistent/evil.so' } });
  await noLoader(`env ${name} = spaces`, { env: { [name]: '   ' } });
}
// unset is fine: an empty value passes, as under Deno, and the child has nothing
await noLoader('empty LD_PRELOAD', { env: { LD_PRELOAD: '' } });
if (!bad) console.log('CONTAINED');
