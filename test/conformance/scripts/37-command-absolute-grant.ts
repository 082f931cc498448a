// flags: --allow-run=/bin/echo
// args: (none)
// --allow-run=/bin/echo allows exactly that path, not the bare name echo.
const ok = await new Deno.Command('/bin/echo', { args: ['absolute ok'] }).output();
console.log(ok.code, new TextDecoder().decode(ok.stdout).trim());
try {
  await new Deno.Command('echo', { args: ['x'] }).output();
  console.log('echo ran');
} catch (e) {
  console.log('echo', (e as Error).name, '|', (e as Error).message);
}
