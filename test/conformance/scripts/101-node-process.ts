// flags: --allow-env=HOME,NODE_TEST_VAR,UNSET_VAR --allow-read=.
// args: one two
// env: NODE_TEST_VAR=from-env
// node:process and the global process: env through Deno.env's grant, argv, exit codes and the
// beforeExit/exit events, streams, timing helpers.
import process from 'node:process';
console.log(process === globalThis.process, process.platform, process.arch, process.version, process.versions.node);
console.log(process.env.NODE_TEST_VAR, process.env.UNSET_VAR, 'NODE_TEST_VAR' in process.env, 'UNSET_VAR' in process.env);
process.env.NODE_TEST_VAR = 'changed';
console.log(process.env.NODE_TEST_VAR, Deno.env.get('NODE_TEST_VAR'));
delete process.env.NODE_TEST_VAR;
console.log(process.env.NODE_TEST_VAR);
console.log(process.argv.length, process.argv.slice(2), process.argv[1]?.endsWith('101-node-process.ts'), process.execArgv);
console.log(typeof process.pid, typeof process.ppid, process.cwd() === Deno.cwd(), typeof process.uptime(), process.hrtime().length, typeof process.hrtime.bigint());
const t = process.hrtime();
const d = process.hrtime(t);
console.log(d.length, d[0] >= 0);
const m = process.memoryUsage();
console.log(typeof m.rss, typeof m.heapUsed, typeof process.memoryUsage.rss());
console.log(process.stdout.isTTY, process.stdout.fd, process.stderr.fd, typeof process.stdin.on);
console.log(process.stdout.write('written through process.stdout\n'));
process.nextTick((x) => console.log('tick', x), 'arg');
await new Promise((resolve) => setTimeout(resolve, 5));
console.log(process.emit === globalThis.process.emit, process.listenerCount('exit'), typeof process.on);
process.on('beforeExit', (code) => console.log('beforeExit', code));
process.on('exit', (code) => console.log('exit event', code, process.exitCode));
process.exitCode = 7;
console.log('end of main');
