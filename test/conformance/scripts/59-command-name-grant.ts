// flags: --allow-run=sh --allow-write=. --allow-read=. --allow-env=PATH
// args: (none)
// cwd: tmp
// links: bin/sh={cwd}/sh
// --allow-run=sh grants the sh found on PATH at start, not any file called sh: a planted ./sh
// stays refused however the child's PATH points at it (env, Deno.env.set, relative entries
// with cwd, a folder of links), and the granted sh still runs.
await Deno.writeTextFile('sh', '#!/bin/sh\necho PLANTED\n', { mode: 0o755 });
await Deno.mkdir('sub');
const here = Deno.cwd();
const run = async (label: string, command: string, options: Deno.CommandOptions) => {
  try {
    const out = await new Deno.Command(command, options).output();
    console.log(label, 'ran', out.code, new TextDecoder().decode(out.stdout).trim());
  } catch (e) {
    console.log(label, (e as Error).name, '|', (e as Error).message);
  }
};
await run('granted sh', 'sh', { args: ['-c', 'echo granted'] });
await run('env PATH=cwd', 'sh', { args: ['-c', 'echo x'], env: { PATH: here } });
await run('env PATH=cwd:/usr/bin:/bin', 'sh', { args: ['-c', 'echo x'], env: { PATH: `${here}:/usr/bin:/bin` } });
await run('env PATH=. (relative)', 'sh', { args: [], env: { PATH: '.' } });
await run('env PATH=.. with cwd sub', 'sh', { args: [], env: { PATH: '..' }, cwd: 'sub' });
await run('env PATH=bin (a folder of links)', 'sh', { args: [], env: { PATH: 'bin' } });
await run('./sh by path', './sh', { args: [] });
await run('sub/../sh by path', 'sub/../sh', { args: [] });
await run('clearEnv, PATH=cwd', 'sh', { args: [], clearEnv: true, env: { PATH: here } });
Deno.env.set('PATH', here);
await run('Deno.env.set PATH=cwd', 'sh', { args: [] });
await run('Deno.env.set, but env PATH restores the real one', 'sh', { args: ['-c', 'echo restored'], env: { PATH: '/usr/bin:/bin' } });
console.log('query sh', (await Deno.permissions.query({ name: 'run', command: 'sh' })).state);
console.log('query ./sh', (await Deno.permissions.query({ name: 'run', command: './sh' })).state);
