// @attack: revokes its own grants, then keeps using them: reads of a revoked folder and of
// @attack: files beneath it, a child path's query, env.get of a revoked variable, writes after
// @attack: revoking write, a command after revoking run, a request to get them back. A
// @attack: revocation must narrow what the broker checks for the rest of the run.
// @expect: contained
// @tier: trusted
// @flags: --allow-read={work} --allow-write={work} --allow-env=HOME,PATH --allow-run=sh
// @env: HOME=/root PATH=/usr/bin:/bin
// @setup: file inside.txt kept
// @setup: file sub/deep.txt kept
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const work = Deno.args[0];
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${JSON.stringify(v)?.slice(0, 80)}`);
  } catch (e) {
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const state = async (d) => (await Deno.permissions.query(d)).state;
if ((await Deno.readTextFile('inside.txt')) !== 'kept') wrong('the grant did not work before the revocation');
const after = await Deno.permissions.revoke({ name: 'read', path: `${work}/sub` });
if (after.state === 'granted') wrong('revoke answered granted');
for (const p of ['inside.txt', 'sub/deep.txt', `${work}/sub/deep.txt`, 'sub/../inside.txt']) await refused(`read ${p} after revoke`, () => Deno.readTextFile(p));
for (const p of [work, `${work}/sub`, `${work}/sub/deep.txt`, `${work}/inside.txt`]) if ((await state({ name: 'read', path: p })) === 'granted') wrong(`query ${p} still granted`);
if ((await Deno.permissions.request({ name: 'read', path: work })).state === 'granted') wrong('request got the revoked read back');
await refused('stat after revoke', () => Deno.stat('inside.txt'));
await refused('readDir after revoke', async () => { for await (const e of Deno.readDir('.')) return e.name; });
await Deno.permissions.revoke({ name: 'env', variable: 'HOME' });
await refused('env.get HOME after revoke', () => Deno.env.get('HOME'));
await refused('env.toObject after revoke', () => Deno.env.toObject());
await Deno.permissions.revoke({ name: 'write' });
await refused('write after revoking write', () => Deno.writeTextFile('new.txt', 'x'));
await Deno.permissions.revoke({ name: 'run', command: 'sh' });
await refused('sh after revoking it', async () => (await new Deno.Command('sh', { args: ['-c', 'echo ran'] }).output()).code);
if (Deno.env.get('PATH') === undefined) wrong('PATH was not revoked and must still read');
if (!bad) console.log('CONTAINED');
