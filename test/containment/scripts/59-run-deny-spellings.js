// @attack: with --allow-run --deny-run=id, runs id anyway: dots, double slashes, parent hops,
// @attack: the /bin alias, a relative path from its cwd, a bare name on another PATH, links
// @attack: planted in its folder (a link named id, a link with another name, a folder of links
// @attack: put on PATH). Every spelling of the program that really runs is id and is refused.
// @expect: contained
// @tier: trusted
// @flags: --allow-run --deny-run=id --allow-env=PATH
// @env: PATH=/usr/bin:/bin
// @setup: link idlink /usr/bin/id
// @setup: link bin/id /usr/bin/id
// @setup: link bin/whoami-not /usr/bin/id
// @setup: link usrbin /usr/bin
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const work = Deno.args[0];
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, cmd, options = {}) {
  try {
    const out = await new Deno.Command(cmd, { args: ['-u'], ...options }).output();
    bad = true;
    console.log(`${MARK} via ${label}: ran, uid ${new TextDecoder().decode(out.stdout).trim()}`);
  } catch (e) {
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const depth = work.split('/').filter(Boolean).length;
for (const cmd of ['id', '/usr/bin/id', '/usr/bin/../bin/id', '//usr/bin/id', '/usr/./bin/id', '/usr/bin//id', '/bin/id', '/usr/lib/../bin/id', `${'../'.repeat(depth)}usr/bin/id`, './idlink', 'idlink', `${work}/idlink`, './bin/id', './bin/whoami-not', './usrbin/id', `${work}/usrbin/../usrbin/id`]) {
  await refused(cmd, cmd, cmd.includes('/') ? {} : { env: { PATH: `${work}:/usr/bin` } });
}
for (const PATH of ['/bin', `${work}/bin`, 'bin', `${work}/usrbin`, '/nonexistent:/bin']) await refused(`id on PATH=${PATH}`, 'id', { env: { PATH } });
await refused('whoami-not on PATH=bin', 'whoami-not', { env: { PATH: 'bin' } });
Deno.env.set('PATH', `${work}/bin`);
await refused('id after Deno.env.set PATH', 'id');
if (!bad) console.log('CONTAINED');
