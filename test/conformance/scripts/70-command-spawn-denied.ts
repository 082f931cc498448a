// flags: --allow-run=echo
// args: (none)
// spawn() is checked as output() is: the command must be granted.
for (const [cmd, args] of [['sh', ['-c', 'true']], ['/bin/echo', ['x']], ['echo', ['granted']]] as [string, string[]][]) {
  try {
    const child = new Deno.Command(cmd, { args, stdout: 'piped' }).spawn();
    console.log(cmd, JSON.stringify(new TextDecoder().decode((await child.output()).stdout)));
  } catch (e) {
    console.log(cmd, (e as Error).name, (e as Error).message);
  }
}
try {
  new Deno.Command('sh', { args: ['-c', 'true'] }).outputSync();
} catch (e) {
  console.log('outputSync', (e as Error).name, (e as Error).message);
}
