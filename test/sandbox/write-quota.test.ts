/**
 * A run's write quota (kernel/broker/write-quota.ts) holds while the script writes, however
 * it writes: many files, one growing file, one huge write, deep folder trees, many empty
 * files, delete-and-rewrite, a shrinking rewrite, and no credit for deleting what was there
 * before the run. What the run holds on disk never passes the quota; the write that would
 * is refused inside the script as a full disk (ENOSPC), and audited. Ops that do not charge
 * the quota (a subprocess) are refused while one is set.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import { createScriptRunner, type ScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';

const CAP = 1 << 20;
const ENTRIES = 64;
let runner: ScriptRunner;
let root: string;
const audit: AuditEvent[] = [];

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-quota-'));
  runner = await createScriptRunner({ cacheDir: path.join(root, 'cache'), poolSize: 1, audit: (e) => void audit.push(e) });
});
after(async () => {
  await runner.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function held(dir: string): { bytes: number; entries: number } {
  let bytes = 0;
  let entries = 0;
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const info = fs.lstatSync(path.join(dir, name));
    entries += 1;
    if (info.isFile()) bytes += info.size;
  }
  return { bytes, entries };
}

/** Runs `body` (async, with `dir` the scratch folder) under the quota; returns what it printed as JSON, and the run. */
async function runQuota(name: string, body: string, options: { prefill?: (dir: string) => void; quota?: boolean; profile?: string; flags?: string[] } = {}) {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  options.prefill?.(dir);
  const file = path.join(root, `${name}.ts`);
  fs.writeFileSync(file, `const dir = Deno.args[0];\nconst seen: unknown[] = [];\nconst big = (n: number) => 'x'.repeat(n);\ntry {\n${body}\n} catch (e) { seen.push({ name: (e as Error).name, code: (e as { code?: string }).code, message: (e as Error).message }); }\nconsole.log(JSON.stringify(seen));\n`);
  audit.length = 0;
  const result = await runner.run({
    file,
    args: [dir],
    permissionFlags: options.flags ?? [`--allow-read=${dir}`, `--allow-write=${dir}`],
    cwd: root,
    env: {},
    profile: options.profile ?? 'community-draft',
    limits: { cpuMs: 2000, wallMs: 10000 },
    ...(options.quota === false ? {} : { writeQuota: { maxBytes: CAP, maxEntries: ENTRIES } }),
  });
  assert.equal(result.exitCode, 0, result.stderr);
  const seen = JSON.parse(result.stdout.trim().split('\n').pop()!) as { name: string; code?: string; message: string }[];
  return { dir, seen, result, denied: audit.filter((e) => e.decision === 'denied') };
}

test('a script writing 256 KiB files in a loop is refused at the cap (ENOSPC) and holds at most the cap', async () => {
  const { dir, seen, result, denied } = await runQuota('loop', 'for (let i = 0; i < 1200; i++) await Deno.writeTextFile(`${dir}/f${i}`, big(256 * 1024));');
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.name, 'Error');
  assert.equal(seen[0]!.code, 'ENOSPC');
  assert.match(seen[0]!.message, /^No space left on device \(os error 28\): it would bring what the run wrote to \d+ bytes, over its write quota of 1048576: writefile '/);
  assert.ok(held(dir).bytes <= CAP, `held ${held(dir).bytes}`);
  assert.equal(held(dir).bytes, 4 * 256 * 1024, 'every write up to the cap went through');
  assert.deepEqual(result.writes, { bytes: 4 * 256 * 1024, entries: 4, refused: 1 });
  assert.equal(denied.length, 1, 'the refusal is audited');
  assert.equal(denied[0]!.reason, 'write-quota');
});

test('one file grown by appends, and one write larger than the cap, are refused the same way', async () => {
  const grow = await runQuota('append', "for (let i = 0; i < 100; i++) await Deno.writeTextFile(`${dir}/log`, big(100_000), { append: true });");
  assert.equal(grow.seen[0]?.code, 'ENOSPC');
  assert.ok(fs.statSync(path.join(grow.dir, 'log')).size <= CAP);
  // (the default profile: a value this large passes its transfer cap, so the quota is what refuses it)
  const huge = await runQuota('huge', `await Deno.writeTextFile(\`\${dir}/blob\`, big(${CAP + 1}));`, { profile: 'default' });
  assert.equal(huge.seen[0]?.code, 'ENOSPC');
  assert.equal(fs.existsSync(path.join(huge.dir, 'blob')), false, 'nothing of a refused write reaches the disk');
});

test('many empty files, and deep folder trees, are bounded by the entry quota', async () => {
  const files = await runQuota('many', 'for (let i = 0; i < 10_000; i++) await Deno.writeTextFile(`${dir}/e${i}`, "");');
  assert.match(files.seen[0]?.message ?? '', /files and folders the run created to 65, over its quota of 64/);
  assert.equal(held(files.dir).entries, ENTRIES);
  const deep = await runQuota('deep', "await Deno.mkdir(`${dir}/${'d/'.repeat(200)}`, { recursive: true });");
  assert.equal(deep.seen[0]?.code, 'ENOSPC');
  assert.equal(held(deep.dir).entries, 0, 'a recursive mkdir over the quota creates nothing');
});

test('the account is net: removing what the run wrote gives room back, a shrinking rewrite too', async () => {
  const cycle = await runQuota('cycle', 'for (let i = 0; i < 8; i++) { await Deno.writeTextFile(`${dir}/tmp`, big(700_000)); await Deno.remove(`${dir}/tmp`); }\nawait Deno.writeTextFile(`${dir}/kept`, big(700_000));');
  assert.deepEqual(cycle.seen, []);
  assert.equal(held(cycle.dir).bytes, 700_000);
  const shrink = await runQuota('shrink', 'await Deno.writeTextFile(`${dir}/a`, big(900_000));\nawait Deno.writeTextFile(`${dir}/a`, big(100_000));\nawait Deno.writeTextFile(`${dir}/b`, big(900_000));\nawait Deno.writeTextFile(`${dir}/c`, big(100_000));');
  assert.equal(shrink.seen[0]?.code, 'ENOSPC', 'the third write passes the cap: 100,000 + 900,000 + 100,000');
  assert.ok(held(shrink.dir).bytes <= CAP);
});

test('deleting files that were there before the run earns no room', async () => {
  const { dir, seen } = await runQuota('prefilled', 'await Deno.remove(`${dir}/old`);\nawait Deno.writeTextFile(`${dir}/new`, big(1_500_000));', {
    prefill: (d) => fs.writeFileSync(path.join(d, 'old'), Buffer.alloc(2_000_000)),
    profile: 'default',
  });
  assert.equal(seen[0]?.code, 'ENOSPC');
  assert.equal(fs.existsSync(path.join(dir, 'new')), false);
});

test('while a quota is set, an op that does not charge it (a subprocess) is refused; without one, writes are unbounded by it', async () => {
  const sub = await runQuota('sub', "await new Deno.Command('/bin/true').output();", { profile: 'default', flags: ['--allow-run', `--allow-write=${path.join(root, 'sub')}`] });
  assert.equal(sub.seen[0]?.name, 'NotCapable');
  assert.match(sub.seen[0]?.message ?? '', /run\.output is not available in a run with a write quota: it could write past it/);
  assert.equal(sub.denied[0]?.reason, 'write-quota');
  const free = await runQuota('free', 'await Deno.writeTextFile(`${dir}/big`, big(3_000_000));', { quota: false, profile: 'default' });
  assert.deepEqual(free.seen, []);
  assert.equal(free.result.writes, undefined);
});

test('every other way of adding to the disk charges the same account: copyFile (both forms), FsFile writes, truncate, makeTemp*, links', async () => {
  const copy = await runQuota('copy', 'await Deno.writeTextFile(`${dir}/src`, big(600_000));\nawait Deno.copyFile(`${dir}/src`, `${dir}/one`);', { profile: 'default' });
  assert.equal(copy.seen[0]?.code, 'ENOSPC', 'the copy would bring the run to 1,200,000 bytes');
  assert.match(copy.seen[0]?.message ?? '', /over its write quota of 1048576: copy '/);
  assert.equal(fs.existsSync(path.join(copy.dir, 'one')), false, 'a refused copy creates nothing');
  const copySync = await runQuota('copysync', 'await Deno.writeTextFile(`${dir}/src`, big(300_000));\nfor (let i = 0; i < 10; i++) Deno.copyFileSync(`${dir}/src`, `${dir}/c${i}`);', { profile: 'default' });
  assert.equal(copySync.seen[0]?.code, 'ENOSPC');
  assert.equal(held(copySync.dir).bytes, 3 * 300_000, 'the source and the two copies that fit');
  assert.equal(copySync.result.writes?.refused, 1);
  const file = await runQuota('fsfile', 'const f = await Deno.open(`${dir}/f`, { write: true, create: true });\nfor (let i = 0; i < 40; i++) await f.write(new TextEncoder().encode(big(100_000)));', { profile: 'default' });
  assert.equal(file.seen[0]?.code, 'ENOSPC');
  assert.equal(fs.statSync(path.join(file.dir, 'f')).size, 10 * 100_000, 'ten writes fit, the eleventh is refused before it lands');
  const stream = await runQuota('stream', 'const f = await Deno.create(`${dir}/s`);\nconst w = f.writable.getWriter();\nfor (let i = 0; i < 40; i++) await w.write(new TextEncoder().encode(big(100_000)));', { profile: 'default' });
  assert.equal(stream.seen[0]?.code, 'ENOSPC', 'a write through FsFile.writable is charged too');
  assert.ok(held(stream.dir).bytes <= CAP);
  const grow = await runQuota('truncate', 'await Deno.writeTextFile(`${dir}/t`, "");\nawait Deno.truncate(`${dir}/t`, 2_000_000);');
  assert.equal(grow.seen[0]?.code, 'ENOSPC', 'a truncate that grows a file charges the growth');
  assert.equal(fs.statSync(path.join(grow.dir, 't')).size, 0);
  const ftrunc = await runQuota('ftruncate', 'const f = await Deno.open(`${dir}/t`, { write: true, create: true });\nawait f.truncate(2_000_000);');
  assert.equal(ftrunc.seen[0]?.code, 'ENOSPC');
  const temps = await runQuota('temps', 'for (let i = 0; i < 40; i++) { await Deno.makeTempFile({ dir }); Deno.makeTempDirSync({ dir }); }');
  assert.match(temps.seen[0]?.message ?? '', /over its quota of 64: mk(stemp|dtemp) '/);
  assert.equal(held(temps.dir).entries, ENTRIES);
  const links = await runQuota('links', 'await Deno.writeTextFile(`${dir}/a`, "x");\nfor (let i = 0; i < 100; i++) { await Deno.link(`${dir}/a`, `${dir}/h${i}`); await Deno.symlink(`${dir}/a`, `${dir}/s${i}`); }', { flags: ['--allow-read', '--allow-write'] });
  assert.equal(links.seen[0]?.code, 'ENOSPC');
  assert.equal(held(links.dir).entries, ENTRIES, 'each new name is an entry, hard link or symlink');
});

test('a rename over a file the run wrote gives its room back; chmod and utime add nothing and pass', async () => {
  const { dir, seen, result } = await runQuota('rename', 'await Deno.writeTextFile(`${dir}/a`, big(600_000));\nawait Deno.writeTextFile(`${dir}/b`, big(400_000));\nawait Deno.rename(`${dir}/b`, `${dir}/a`);\nawait Deno.chmod(`${dir}/a`, 0o600);\nawait Deno.utime(`${dir}/a`, 1, 1);\nawait Deno.writeTextFile(`${dir}/c`, big(600_000));');
  assert.deepEqual(seen, []);
  assert.deepEqual(held(dir), { bytes: 1_000_000, entries: 2 });
  assert.equal(result.writes?.bytes, 1_000_000);
});

test('spawn() is refused under a quota like output(): a child writes with its own system calls', async () => {
  const sub = await runQuota('spawn', "new Deno.Command('/bin/true').spawn();", { profile: 'default', flags: ['--allow-run', `--allow-write=${path.join(root, 'spawn')}`] });
  assert.equal(sub.seen[0]?.name, 'NotCapable');
  assert.match(sub.seen[0]?.message ?? '', /run\.spawn is not available in a run with a write quota/);
});
