// @attack: granted --allow-run=sh and writes to its folder, it plants its own `sh` there (mode
// @attack: 0755) and makes the child find it: env PATH, Deno.env.set("PATH"), a relative PATH
// @attack: entry with and without cwd, PATH with the planted folder first, clearEnv, a folder
// @attack: of links to the planted file, a path spelled with a slash, a file: URL. The planted
// @attack: program must never run; the real sh must.
// @expect: contained
// @tier: trusted
// @flags: --allow-run=sh --allow-write={work} --allow-read={work} --allow-env=PATH
// @env: PATH=/usr/local/bin:/usr/bin:/bin
// @setup: link links/sh {work}/sh
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const work = Deno.args[0];
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
// the planted program says so, and leaves a file behind for the harness to find
await Deno.writeTextFile('sh', `#!/bin/sh\necho ${MARK.slice(0, 3)}""${MARK.slice(3)} planted sh ran\n: > /tmp/rtc-escaped-58\n`, { mode: 0o755 });
await Deno.mkdir('sub');
async function refused(label, cmd, options) {
  try {
    const out = await new Deno.Command(cmd, { args: [], ...options }).output();
    const text = new TextDecoder().decode(out.stdout);
    bad = true;
    console.log(`${MARK} via ${label}: ran (${text.trim().slice(0, 80)})`);
  } catch (e) {
    if (!['NotCapable', 'NotFound'].includes(e?.name)) wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
await refused('env PATH=work', 'sh', { env: { PATH: work } });
await refused('env PATH=work first', 'sh', { env: { PATH: `${work}:/usr/bin:/bin` } });
await refused('env PATH=.', 'sh', { env: { PATH: '.' } });
await refused('env PATH=. cwd=work', 'sh', { env: { PATH: '.' }, cwd: work });
await refused('env PATH=.. cwd=sub', 'sh', { env: { PATH: '..' }, cwd: `${work}/sub` });
await refused('env PATH=links', 'sh', { env: { PATH: 'links' } });
await refused('env PATH=work/links', 'sh', { env: { PATH: `${work}/links` } });
await refused('clearEnv PATH=work', 'sh', { clearEnv: true, env: { PATH: work } });
await refused('./sh', './sh', {});
await refused('absolute planted path', `${work}/sh`, {});
await refused('sub/../sh', 'sub/../sh', {});
await refused('file: URL', new URL(`file://${work}/sh`), {});
Deno.env.set('PATH', work);
await refused('Deno.env.set PATH=work', 'sh', {});
Deno.env.set('PATH', `.:/usr/bin:/bin`);
await refused('Deno.env.set PATH=.:...', 'sh', {});
Deno.env.set('PATH', '/usr/local/bin:/usr/bin:/bin');
const real = await new Deno.Command('sh', { args: ['-c', 'echo real'] }).output();
if (new TextDecoder().decode(real.stdout).trim() !== 'real') wrong('the granted sh did not run');
if (!bad) console.log('CONTAINED');
