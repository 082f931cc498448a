// flags: --allow-run
// args: (none)
// Deno.Command errors: a missing program (NotFound), piped stdin with output() (TypeError),
// and a missing cwd.
try {
  await new Deno.Command('definitely-not-a-command-xyz').output();
} catch (e) {
  console.log('missing program', (e as Error).name, e instanceof Deno.errors.NotFound, '|', (e as Error).message);
}
try {
  await new Deno.Command('echo', { stdin: 'piped' }).output();
} catch (e) {
  console.log('piped stdin', (e as Error).name, '|', (e as Error).message);
}
try {
  await new Deno.Command('echo', { cwd: '/definitely/not/a/dir' }).output();
} catch (e) {
  console.log('missing cwd', (e as Error).name, e instanceof Deno.errors.NotFound);
}
const ok = await new Deno.Command('echo', { args: ['still works'] }).output();
console.log(new TextDecoder().decode(ok.stdout).trim());
