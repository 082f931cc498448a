/**
 * Issue 27 items 1 and 2, from outside: a hostile executor session (a `command` executor
 * running a shell script in the real bubblewrap sandbox) leaves links for the kernel to write
 * through, and forges process markers for the next start to trust.
 *
 *  - links where the session's files go (stdout.txt, stderr.txt as a folder of links,
 *    last-message.md, manifest.json, sandbox.json), in the workspace where the kernel writes
 *    its manifests, a workspace folder swapped for a link, the provider home's write probe:
 *    the files outside (`bin/runtimectl.js`, `operators.json` stand-ins) are never written;
 *    the session's own files are written fresh and the manifest names what it replaced; a
 *    folder swapped for a link is one refusal line, and the other persona keeps being served;
 *  - the session sees its own session folder only: no sibling, no sessions folder to write,
 *    no kernel marker folder; a `process.json` it writes (naming a host process, start time
 *    null) is never read: the next start signals nothing, and that process lives on;
 *  - recovery itself, handed forged markers in the kernel's own folder: a null, a mismatched
 *    start time, another boot, a malformed or misnamed marker signal nothing; only the exact
 *    identity of a real leftover is ended.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { executorSessionManifestSchema } from '../../plugins/executor-shared/model/session-manifest.ts';
import { personaPaths, workspaceDir } from '../../features/persona-layout/layout.ts';
import { PROCESS_MARKER_FORMAT, processMarkerDir, recoverLeftSessions } from '../../features/science-loop/executors/children.ts';
import { bootId, processEnded, processStartTime } from '../../sandboxes/subprocess/os-sandbox/process-tree.ts';
import { cycleEvents, events, fakeTime, packet, profile, readJson, run, tempDir } from '../../features/science-loop/test/helpers.ts';
import { NO_OS_SANDBOX } from '../support/os-sandbox.ts';

const victims: ChildProcess[] = [];
after(() => {
  for (const v of victims) v.kill('SIGKILL');
});

/** A host process a forged marker names: it must outlive every start. */
function victimProcess(): ChildProcess {
  const child = spawn('sleep', ['300'], { stdio: 'ignore', detached: true });
  victims.push(child);
  return child;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Files of the kernel's that a session must never reach (stand-ins for bin/runtimectl.js and operators.json). */
function outside(dir: string): { root: string; kernel: string; operators: string; snapshot: () => string } {
  const root = path.join(dir, 'kernel-install');
  mkdirSync(root, { recursive: true });
  const kernel = path.join(root, 'runtimectl.js');
  writeFileSync(kernel, '#!/usr/bin/env node\n// the kernel\n');
  const operators = path.join(root, 'operators.json');
  writeFileSync(operators, '{"operators":[]}\n');
  const snapshot = () => readdirSync(root).sort().map((f) => `${f}=${readFileSync(path.join(root, f), 'utf8')}`).join('|');
  return { root, kernel, operators, snapshot };
}

/** A persona whose executor is `sh -c SCRIPT sh {prompt_file} ...args`. */
function hostile(dir: string, id: string, script: string, args: string[]) {
  return profile(
    dir,
    id,
    `runtime: agent-${id}
executor:
  plugin: executor.command
  config: { command: sh, args: ${JSON.stringify(['-c', script, 'sh', '{prompt_file}', ...args])}, spends_tokens: false }
allow:
  read: ["\${state}"]
  write: ["\${state}"]
  run: [sh]`,
  );
}

function quiet(dir: string, id: string) {
  return profile(dir, id, `runtime: agent-${id}\nexecutor: { plugin: executor.command, config: { command: sh, args: ["-c", "cat >/dev/null; echo served"], spends_tokens: false } }\nallow: { read: ["\${state}"], write: ["\${state}"], run: [sh] }`);
}

const PLANT = `
s=$(dirname "$1"); sessions=$(dirname "$s"); out=$2; vpid=$3; boot=$4; state=$5
cat >/dev/null
# links where the session's own files will be written
ln -s "$out/runtimectl.js" "$s/stdout.txt"
ln -s "$out/operators.json" "$s/manifest.json"
ln -s "$out/sandbox-written" "$s/sandbox.json"
ln -s "$out/last-written" "$s/last-message.md"
mkdir "$s/stderr.txt" && ln -s "$out/runtimectl.js" "$s/stderr.txt/inner"
# a marker in its own folder, as the old kernel kept them: a host process, no start time
printf '{"format":"runtimectl.session-process/1","run_id":"%s","command":"sh","pid":%s,"process_group":%s,"start_time":null,"boot_id":"%s","sandboxed":false,"expected_tokens":999999}' "$(basename "$s")" "$vpid" "$vpid" "$boot" > "$s/process.json"
# siblings, the sessions folder and the kernel's marker folder are out of reach
if mkdir "$sessions/c999999-forged" 2>/dev/null; then echo "sibling: ok"; else echo "sibling: refused"; fi
if echo x > "$sessions/planted" 2>/dev/null; then echo "sessions-folder: ok"; else echo "sessions-folder: refused"; fi
if mkdir -p "$state/.runtimectl/processes/ada" 2>/dev/null && echo '{}' > "$state/.runtimectl/processes/ada/x.json" 2>/dev/null; then echo "marker-folder: ok"; else echo "marker-folder: refused"; fi
echo "sessions-visible: $(ls "$sessions" | tr '\\n' ' ')"
# links where the kernel writes next time: the workspace readme, the provider home's probe
ln -sf "$out/runtimectl.js" "$PWD/workspace-readme.md"
ln -s "$out/runtimectl.js" "$HOME/.runtimectl-write-check"
echo planted
`;

test('a session that plants links and forges a marker: nothing outside is written, its files are kept, the next start signals nothing', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-links-');
  const stateDir = path.join(dir, 'state');
  const out = outside(dir);
  const before = out.snapshot();
  const victim = victimProcess();
  const own = personaPaths(stateDir, 'ada');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const time = fakeTime();
  const [first] = await run([hostile(dir, 'ada', PLANT, [out.root, String(victim.pid), bootId(), stateDir])], { stateDir, ...time });
  const report = first!.reports[0]!;
  assert.equal(report.act.status, 'ok', report.act.reason ?? '');
  const session = path.join(own.sessionsDir, report.act.session!.run_id);

  assert.equal(out.snapshot(), before, 'no file outside the state was written or made');
  // the session's own files were written fresh, as regular files, with what it really printed
  for (const name of ['stdout.txt', 'stderr.txt', 'last-message.md', 'manifest.json', 'sandbox.json']) {
    assert.ok(lstatSync(path.join(session, name)).isFile(), `${name} is a regular file`);
  }
  const said = readFileSync(path.join(session, 'stdout.txt'), 'utf8');
  assert.match(said, /^planted$/m);
  // What it made beside its folder went to the sandbox's private view, never to the host.
  assert.deepEqual(readdirSync(own.sessionsDir), [report.act.session!.run_id], 'no sibling, nothing in the sessions folder');
  assert.equal(existsSync(path.join(stateDir, '.runtimectl', 'processes', 'ada', 'x.json')), false, 'the kernel marker folder is out of reach');
  const manifest = executorSessionManifestSchema.parse(readJson(path.join(session, 'manifest.json')));
  assert.deepEqual(manifest.replaced, ['stdout.txt (a symbolic link stood there)', 'stderr.txt (a folder stood there)', 'last-message.md (a symbolic link stood there)', 'manifest.json (a symbolic link stood there)']);
  const view = readJson(path.join(session, 'sandbox.json')).children[0].view;
  assert.ok(view.writable.includes(session) && !view.writable.includes(own.sessionsDir), JSON.stringify(view.writable));

  // The next start: the marker the session wrote in its folder is nothing to the kernel, and
  // the planted readme and probe links are replaced where the kernel writes, never followed.
  packet(stateDir, 'ada', 'q2.md', '# Q2\n');
  const [second] = await run([hostile(dir, 'ada', 'cat >/dev/null; echo second', [])], { stateDir, ...time });
  assert.equal(second!.reports[0]!.act.status, 'ok', second!.reports[0]!.act.reason ?? '');
  assert.ok(alive(victim.pid!), 'the host process the forged marker named was not signalled');
  assert.equal(events(stateDir, 'ada').filter((e) => e.type === 'executor_session_interrupted').length, 0, 'no session was recorded interrupted from a forged marker');
  assert.equal(out.snapshot(), before);
  assert.ok(lstatSync(path.join(workspaceDir(own), 'workspace-readme.md')).isFile());
  assert.equal(existsSync(path.join(own.dir, 'brain', 'providers', 'command', '.runtimectl-write-check')), false, 'the probe link was replaced and removed');
});

test('workspace folders swapped for links: the next session is refused with one line, nothing lands outside, the other persona is served', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-links-');
  const stateDir = path.join(dir, 'state');
  const out = outside(dir);
  const before = out.snapshot();
  const time = fakeTime();
  for (const id of ['ada', 'cy', 'bo']) packet(stateDir, id, 'q.md', '# Q\n');
  // ada: the workspace's manifests folder becomes a link to the kernel's install;
  // cy: the workspaces folder above the workspace does (the kernel's lstat of the workspace then sees the target's)
  const manifests = `cat >/dev/null; rm -rf "$PWD/manifests" && ln -s "$1" "$PWD/manifests" && echo swapped`;
  const workspaces = `cat >/dev/null; w=$(dirname "$PWD"); mv "$w" "$w.old" && ln -s "$1" "$w" && echo swapped`;
  const first = await run([hostile(dir, 'ada', manifests, [out.root]), hostile(dir, 'cy', workspaces, [out.root])], { stateDir, ...time });
  for (const r of first) assert.match(readFileSync(path.join(personaPaths(stateDir, r.persona_id).sessionsDir, r.reports[0]!.act.session!.run_id, 'stdout.txt'), 'utf8'), /swapped/);
  for (const id of ['ada', 'cy']) packet(stateDir, id, 'q2.md', '# Q2\n');
  const runs = await run([hostile(dir, 'ada', 'cat >/dev/null; echo never', []), hostile(dir, 'cy', 'cat >/dev/null; echo never', []), quiet(dir, 'bo')], { stateDir, ...time });
  const act = (id: string) => runs.find((r) => r.persona_id === id)!.reports[0]!.act;
  assert.equal(act('ada').outcome, 'failed');
  assert.match(act('ada').reason ?? '', /^workspace: RTC_ERR_WORKSPACE_CONFLICT: \S+\/main\/manifests: exists and is not a directory$/);
  assert.equal(act('cy').outcome, 'failed');
  assert.match(act('cy').reason ?? '', /^workspace: RTC_ERR_FS_LINK_REFUSED: \S+\/workspaces\/main: \S+\/brain\/workspace\/workspaces is a symbolic link, and the kernel follows no link in a folder sandboxed code can write; it was not created$/);
  assert.equal(out.snapshot(), before, 'nothing was written or made in the folder the links point at');
  assert.equal(act('bo').status, 'ok', 'the other persona is served');
  assert.equal(cycleEvents(stateDir, 'cy').at(-1)!.executor.outcome ?? cycleEvents(stateDir, 'cy').at(-1)!.outcome, 'failed');
});

test('recovery trusts a marker only for the exact process it names: null, mismatched, other-boot, malformed and misnamed markers signal nothing', async () => {
  const dir = tempDir('rtc-markers-');
  const stateDir = path.join(dir, 'state');
  const sessionsDir = personaPaths(stateDir, 'ada').sessionsDir;
  const markers = processMarkerDir(stateDir, 'ada');
  mkdirSync(markers, { recursive: true });
  mkdirSync(sessionsDir, { recursive: true });
  const victim = victimProcess();
  const pid = victim.pid!;
  const real = processStartTime(pid)!;
  const marker = (runId: string, fields: Record<string, unknown>) =>
    writeFileSync(
      path.join(markers, `${runId}.json`),
      JSON.stringify({ format: PROCESS_MARKER_FORMAT, run_id: runId, command: 'sh', pid, process_group: pid, start_time: real, boot_id: bootId(), sandboxed: false, expected_tokens: 10, ...fields }),
    );
  marker('c000001-null', { start_time: null });
  marker('c000002-later', { start_time: real + 1 });
  marker('c000003-boot', { boot_id: 'another-boot' });
  marker('c000004-sandboxed', { start_time: real + 7, sandboxed: true });
  marker('c000005-misnamed', { run_id: 'c000099-other' });
  marker('c000006-extra', { note: 'an unknown field' });
  writeFileSync(path.join(markers, 'c000007-broken.json'), '{"format":');
  // the old place, in a session folder the session could write: never read
  mkdirSync(path.join(sessionsDir, 'c000008-legacy'), { recursive: true });
  writeFileSync(path.join(sessionsDir, 'c000008-legacy', 'process.json'), JSON.stringify({ format: PROCESS_MARKER_FORMAT, run_id: 'c000008-legacy', command: 'sh', pid, process_group: pid, start_time: real, boot_id: bootId(), sandboxed: false, expected_tokens: 10 }));

  const left = await recoverLeftSessions(stateDir, 'ada', sessionsDir, 300);
  assert.ok(alive(pid), 'the named process was never signalled');
  const found = Object.fromEntries(left.map((l) => [l.run_id, l.found]));
  assert.deepEqual(found, { 'c000001-null': 'gone', 'c000002-later': 'gone', 'c000003-boot': 'gone', 'c000004-sandboxed': 'gone', 'c000005-misnamed': 'invalid', 'c000006-extra': 'invalid', 'c000007-broken': 'invalid' });
  assert.match(left.find((l) => l.run_id === 'c000005-misnamed')!.problem!, /names run c000099-other, not c000005-misnamed; nothing was signalled$/);
  assert.deepEqual(readdirSync(markers), [], 'every marker was consumed');

  // the exact identity of a real leftover is ended
  const leftover = spawn('sleep', ['300'], { stdio: 'ignore', detached: true });
  victims.push(leftover);
  await new Promise((r) => setTimeout(r, 50));
  writeFileSync(
    path.join(markers, 'c000010-real.json'),
    JSON.stringify({ format: PROCESS_MARKER_FORMAT, run_id: 'c000010-real', command: 'sleep', pid: leftover.pid, process_group: leftover.pid, start_time: processStartTime(leftover.pid!), boot_id: bootId(), sandboxed: false, expected_tokens: 10 }),
  );
  const ended = await recoverLeftSessions(stateDir, 'ada', sessionsDir, 2000);
  assert.deepEqual(ended.map((l) => [l.run_id, l.found, l.ended]), [['c000010-real', 'running', 'terminated']]);
  for (let i = 0; i < 40 && alive(leftover.pid!); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(leftover.pid!), false);
  assert.ok(alive(pid));
});

test('a left session whose process is a zombie nobody reaped yet (its kernel was killed; a late init) is found gone, not running', async () => {
  const dir = tempDir('rtc-zombie-');
  const stateDir = path.join(dir, 'state');
  const sessionsDir = personaPaths(stateDir, 'ada').sessionsDir;
  const markers = processMarkerDir(stateDir, 'ada');
  mkdirSync(markers, { recursive: true });
  // sh starts `sleep 0`, then becomes `sleep 30`, which never reaps it: a zombie for 30 s
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  victims.push(parent);
  const zombie = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  for (let i = 0; i < 100 && !processEnded(zombie); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(processEnded(zombie), true, 'the child ended and waits to be reaped');
  const start = processStartTime(zombie);
  assert.ok(start !== undefined, '/proc still shows its start time');
  for (const [runId, sandboxed] of [['c000001-codex', true], ['c000002-command', false]] as const) {
    writeFileSync(
      path.join(markers, `${runId}.json`),
      JSON.stringify({ format: PROCESS_MARKER_FORMAT, run_id: runId, command: 'sleep', pid: zombie, process_group: zombie, start_time: start, boot_id: bootId(), sandboxed, expected_tokens: 10 }),
    );
  }
  const left = await recoverLeftSessions(stateDir, 'ada', sessionsDir, 300);
  assert.deepEqual(left.map((l) => [l.run_id, l.found, l.ended]), [['c000001-codex', 'gone', null], ['c000002-command', 'gone', null]]);
  assert.equal(processEnded(parent.pid!), false, 'nothing was signalled: its parent runs on');
});

test("the console shows a session's files without following what its command planted: links, hard links and FIFOs read as missing, never block", async () => {
  const { readSession } = await import('../../features/console/persona.ts');
  const { execFileSync } = await import('node:child_process');
  const { linkSync, symlinkSync } = await import('node:fs');
  const dir = tempDir('rtc-console-links-');
  const stateDir = path.join(dir, 'state');
  const out = outside(dir);
  const session = path.join(personaPaths(stateDir, 'ada').sessionsDir, 'c000001-command');
  mkdirSync(session, { recursive: true });
  writeFileSync(path.join(session, 'prompt.md'), '# the prompt\n');
  symlinkSync(out.operators, path.join(session, 'stdout.txt'));
  linkSync(out.kernel, path.join(session, 'stderr.txt'));
  execFileSync('mkfifo', [path.join(session, 'last-message.md')]);
  const started = Date.now();
  const files = Object.fromEntries(readSession(stateDir, 'ada', 'c000001-command').map((f) => [f.name, f]));
  assert.ok(Date.now() - started < 2000, 'no read blocked');
  assert.equal(files['prompt.md']!.text, '# the prompt\n');
  for (const name of ['stdout.txt', 'stderr.txt', 'last-message.md', 'manifest.json']) assert.equal(files[name]!.missing, true, name);
});

test("links planted at or beside the persona's ledger database (the executor may write orchestra/): SQLite never opens through them", { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-links-sqlite-');
  const stateDir = path.join(dir, 'state');
  const out = outside(dir);
  const before = out.snapshot();
  const time = fakeTime();
  // both personas keep their state (and their ledger) in SQLite
  for (const id of ['ada', 'bo']) {
    packet(stateDir, id, 'q.md', '# Q\n');
    writeFileSync(path.join(stateDir, id, 'persistence.yaml'), 'schema_version: 1\nbackend: sqlite\n');
  }
  // ada: the ledger's WAL becomes a link to the kernel's install; bo: the ledger database
  // itself becomes a link to the persona's own persistence database (inside the persona, so
  // no path check catches it; the ledger would write its tables beside the event log)
  const wal = `cat >/dev/null; o="$3/orchestra"; rm -f "$o/orchestra.db-wal" "$o/orchestra.db-shm"; ln -s "$2/runtimectl.js" "$o/orchestra.db-wal"; echo planted`;
  const db = `cat >/dev/null; o="$3/orchestra"; mv "$o/orchestra.db" "$o/orchestra.db.real"; rm -f "$o/orchestra.db-wal" "$o/orchestra.db-shm"; ln -s ../persistence.db "$o/orchestra.db"; echo planted`;
  const first = await run([hostile(dir, 'ada', wal, [out.root, personaPaths(stateDir, 'ada').dir]), hostile(dir, 'bo', db, [out.root, personaPaths(stateDir, 'bo').dir])], { stateDir, ...time });
  for (const r of first) assert.match(readFileSync(path.join(personaPaths(stateDir, r.persona_id).sessionsDir, r.reports[0]!.act.session!.run_id, 'stdout.txt'), 'utf8'), /planted/);
  for (const id of ['ada', 'bo']) packet(stateDir, id, 'q2.md', '# Q2\n');
  const second = await run([hostile(dir, 'ada', 'cat >/dev/null; echo second', []), hostile(dir, 'bo', 'cat >/dev/null; echo second', [])], { stateDir, ...time });
  assert.equal(out.snapshot(), before, 'no WAL was written through a link');
  const payload = (id: string) => (second.find((r) => r.persona_id === id)!.reports[0]! as unknown as { payload: { ledger: { error?: string } }; act: { status: string } });
  // each ledger step says why, in one line; the sessions still ran: the personas keep being served
  assert.match(payload('ada').payload.ledger.error ?? '', /orchestra\/orchestra\.db-wal: \S+orchestra\.db-wal is a symbolic link, and the kernel follows no link in a folder sandboxed code can write; it was not opened$/);
  assert.match(payload('bo').payload.ledger.error ?? '', /orchestra\/orchestra\.db: \S+orchestra\.db is a symbolic link, and the kernel follows no link in a folder sandboxed code can write; it was not opened$/);
  for (const id of ['ada', 'bo']) assert.equal(payload(id).act.status, 'ok');
});

test('a script whose children may write its folder: links they plant there lead nowhere outside the grant, for every file op', { skip: NO_OS_SANDBOX }, async () => {
  const { createScriptRunner } = await import('../../features/sandbox-run/runner/script-runner.ts');
  const dir = tempDir('rtc-script-links-');
  const out = outside(dir);
  const before = out.snapshot();
  const work = path.join(dir, 'work');
  mkdirSync(work);
  const runner = await createScriptRunner({ cacheDir: path.join(dir, 'cache'), poolSize: 1 });
  try {
    const script = path.join(dir, 'links.ts');
    writeFileSync(
      script,
      `const w = ${JSON.stringify(work)};
const plant = ${JSON.stringify(`ln -s '${out.kernel}' '${work}/out.txt'; ln -s '${out.root}' '${work}/dir'; mkdir '${work}/sub'; ln -s '${out.root}' '${work}/sub/deeper'`)};
await new Deno.Command('/bin/sh', { args: ['-c', plant] }).output();
const tries = {
  write: () => Deno.writeTextFile(w + '/out.txt', 'owned'),
  append: () => Deno.writeTextFile(w + '/out.txt', 'owned', { append: true }),
  read: () => Deno.readTextFile(w + '/out.txt'),
  create: () => Deno.writeTextFile(w + '/dir/new.txt', 'owned'),
  deep: () => Deno.writeTextFile(w + '/sub/deeper/runtimectl.js', 'owned'),
  open: () => Deno.open(w + '/dir/runtimectl.js', { write: true }),
  truncate: () => Deno.truncate(w + '/out.txt', 0),
  chmod: () => Deno.chmod(w + '/out.txt', 0o777),
  mkdir: () => Deno.mkdir(w + '/dir/made'),
  remove: () => Deno.remove(w + '/dir/operators.json'),
  rename: () => Deno.rename(w + '/dir/operators.json', w + '/stolen.json'),
  copy: () => Deno.copyFile(w + '/out.txt', w + '/copy.txt'),
  readDir: async () => { for await (const _ of Deno.readDir(w + '/dir')) {} },
};
for (const [name, f] of Object.entries(tries)) {
  try { await f(); console.log(name, 'DONE'); } catch (e) { console.log(name, e.name); }
}
// the script's own links inside its folder still work (Deno's rule, within the grant)
await Deno.writeTextFile(w + '/real.txt', 'mine');
await new Deno.Command('/bin/sh', { args: ['-c', "ln -s real.txt '" + w + "/alias.txt'"] }).output();
console.log('inside', await Deno.readTextFile(w + '/alias.txt'));`,
    );
    const result = await runner.run({ file: script, args: [], permissionFlags: [`--allow-read=${work}`, `--allow-write=${work}`, '--allow-run=/bin/sh'], cwd: work, env: { PATH: '/usr/bin:/bin' }, profile: 'default', limits: { wallMs: 30_000 } });
    assert.equal(result.exitCode, 0, result.stderr);
    const lines = Object.fromEntries(result.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
    for (const name of ['write', 'append', 'read', 'create', 'deep', 'open', 'truncate', 'chmod', 'mkdir', 'remove', 'rename', 'copy', 'readDir']) {
      assert.equal(lines[name], 'NotCapable', `${name}: ${lines[name]}`);
    }
    assert.equal(lines.inside, 'mine');
    assert.equal(out.snapshot(), before, 'nothing outside the grant was read into the run, written, made or removed');
  } finally {
    await runner.close();
  }
});
