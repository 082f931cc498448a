// flags: --allow-run=cat,sh,sleep,echo
// args: (none)
// new Deno.Command(...).spawn(): piped stdin/stdout/stderr as web streams, status, kill, output().
const dec = new TextDecoder();
const cat = new Deno.Command('cat', { stdin: 'piped', stdout: 'piped', stderr: 'piped' }).spawn();
console.log(typeof cat.pid, cat.stdin instanceof WritableStream, cat.stdout instanceof ReadableStream, cat.stderr instanceof ReadableStream);
const writer = cat.stdin.getWriter();
await writer.write(new TextEncoder().encode('line one\n'));
await writer.write(new TextEncoder().encode('line two\n'));
await writer.close();
const out = await cat.output();
console.log(JSON.stringify(dec.decode(out.stdout)), out.code, out.success, out.signal, out.stderr.length);
const sh = new Deno.Command('sh', { args: ['-c', 'echo to-out; echo to-err 1>&2; exit 4'], stdout: 'piped', stderr: 'piped' }).spawn();
const [so, se, st] = await Promise.all([new Response(sh.stdout).text(), new Response(sh.stderr).text(), sh.status]);
console.log(JSON.stringify(so), JSON.stringify(se), st);
const piped = new Deno.Command('sh', { args: ['-c', 'echo a; echo b'], stdout: 'piped' }).spawn();
let text = '';
for await (const chunk of piped.stdout.pipeThrough(new TextDecoderStream())) text += chunk;
console.log(JSON.stringify(text), await piped.status);
const sleeper = new Deno.Command('sleep', { args: ['30'] }).spawn();
sleeper.kill();
console.log(await sleeper.status);
try {
  sleeper.kill();
} catch (e) {
  console.log('kill again', (e as Error).name, (e as Error).message);
}
const term = new Deno.Command('sleep', { args: ['30'] }).spawn();
term.kill('SIGKILL');
console.log(await term.status);
for (const name of ['stdin', 'stdout', 'stderr'] as const) {
  try {
    term[name];
  } catch (e) {
    console.log(name, (e as Error).name, (e as Error).message);
  }
}
const notPiped = await new Deno.Command('echo', { args: ['quiet'], stdout: 'null' }).spawn().output();
console.log(Object.keys(notPiped), notPiped.code);
try {
  notPiped.stdout;
} catch (e) {
  console.log('output stdout', (e as Error).message);
}
const inherit = new Deno.Command('echo', { args: ['inherited line'] }).spawn();
console.log('inherit status', await inherit.status);
try {
  new Deno.Command('no-such-command-xyz').spawn();
} catch (e) {
  console.log('missing', (e as Error).name, (e as Error).message);
}
const syncOut = new Deno.Command('echo', { args: ['from outputSync'] }).outputSync();
console.log(JSON.stringify(dec.decode(syncOut.stdout)), syncOut.success);
