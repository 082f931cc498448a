// flags: --allow-run --deny-run=id
// args: (none)
// --deny-run=id holds however the command is spelled: dots, double slashes, a parent hop,
// the /bin alias of /usr/bin, a bare name on another PATH.
const tries: [string, Deno.CommandOptions][] = [
  ['id', {}],
  ['/usr/bin/id', {}],
  ['/usr/bin/../bin/id', {}],
  ['//usr/bin/id', {}],
  ['/usr/./bin/id', {}],
  ['/usr/bin//id', {}],
  ['/bin/id', {}],
  ['/usr/lib/../bin/id', {}],
];
for (const [command, options] of tries) {
  try {
    await new Deno.Command(command, { args: ['-u'], ...options }).output();
    console.log(command, 'ran');
  } catch (e) {
    console.log(command, (e as Error).name, '|', (e as Error).message);
  }
}
for (const PATH of ['/bin', '/usr/local/bin:/usr/bin', '/nonexistent:/bin']) {
  try {
    await new Deno.Command('id', { args: ['-u'], env: { PATH } }).output();
    console.log('id with PATH', PATH, 'ran');
  } catch (e) {
    console.log('id with PATH', PATH, (e as Error).name, '|', (e as Error).message);
  }
}
const ok = await new Deno.Command('echo', { args: ['others still run'] }).output();
console.log(new TextDecoder().decode(ok.stdout).trim());
