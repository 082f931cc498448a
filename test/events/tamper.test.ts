/**
 * Tampering: an edited, deleted or reordered event is caught by `runtimectl verify`, which
 * names the file, the line and seq, and what is wrong, and exits non-zero; an intact state
 * directory exits 0. Verify never writes. Run in-process through main() with a captured io.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../cli/main.ts';
import type { CliIo } from '../../features/command/command.ts';
import { VERIFY_CHECKS, type VerifyReport } from '../../features/verify/cli.ts';
import { computeEventHash, eventLogPath, openEventLog, type EventEnvelope } from '../../kernel/events/index.ts';

interface Captured {
  status: number;
  stdout: string;
  stderr: string;
}

async function verify(args: string[], env: NodeJS.ProcessEnv = {}, cwd = os.tmpdir()): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env };
  const status = await main(['verify', ...args], io);
  return { status, stdout, stderr };
}

/** A state dir with personas `alpha` and `beta`, each with `count` events. */
async function stateWithTwoPersonas(count = 5): Promise<string> {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  for (const persona of ['alpha', 'beta']) {
    const log = await openEventLog(eventLogPath(state, persona));
    for (let i = 0; i < count; i++) await log.append('test.tick', { persona, i, output_tokens: i * 10 });
    await log.close();
  }
  return state;
}

function editLines(file: string, edit: (lines: string[]) => void): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  edit(lines);
  fs.writeFileSync(file, lines.join('\n'));
}

function snapshot(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, entry);
    if (fs.statSync(full).isFile()) out.set(entry, fs.readFileSync(full));
  }
  return out;
}

test('an intact state directory verifies: exit 0, every persona listed', async () => {
  const state = await stateWithTwoPersonas();
  fs.mkdirSync(path.join(state, 'gamma'));
  fs.mkdirSync(path.join(state, 'workspaces', 'w1'), { recursive: true });
  const text = await verify(['--state-dir', state]);
  assert.equal(text.status, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /^alpha {2}events {2}ok {2}5 event\(s\), last seq 5; incremental: checked seq 1\.\.5 \(5 record\(s\): the open segment\)$/m);
  assert.match(text.stdout, /^beta {2}events {2}ok/m);
  assert.match(text.stdout, /^gamma {2}events {2}absent {2}no event log$/m, 'a persona that never ran is not a failure');
  assert.doesNotMatch(text.stdout, /workspaces/);
  assert.match(text.stdout, /3 persona\(s\) intact/);

  const json = await verify(['--state-dir', state, '--json']);
  assert.equal(json.status, 0);
  const report = JSON.parse(json.stdout) as VerifyReport;
  assert.equal(report.ok, true);
  assert.deepEqual(report.personas.map((p) => p.id), ['alpha', 'beta', 'gamma']);
  assert.ok(VERIFY_CHECKS.some((c) => c.name === 'events'));
});

const TAMPERS: Array<[string, (lines: string[]) => void, RegExp]> = [
  ['an edited payload', (l) => (l[2] = l[2]!.replace('"output_tokens":20', '"output_tokens":2000')), /:3 \(seq 3\): hash .* does not match the event's content/],
  ['an edited type', (l) => (l[1] = l[1]!.replace('"type":"test.tick"', '"type":"test.tock"')), /:2 \(seq 2\): hash .* does not match/],
  [
    'an edited event with its hash recomputed',
    (l) => {
      const event = JSON.parse(l[1]!) as EventEnvelope;
      event.payload = { ...event.payload, output_tokens: 0 };
      event.hash = computeEventHash(event);
      l[1] = JSON.stringify(event);
    },
    /:3 \(seq 3\): prev .* does not match the hash of the event before it/,
  ],
  ['a deleted event', (l) => l.splice(2, 1), /:3 \(seq 4\): seq 4 where seq 3 was expected \(an event is missing or out of order\)/],
  ['a deleted first event', (l) => l.splice(0, 1), /:1 \(seq 2\): seq 2 where seq 1 was expected/],
  ['two events swapped', (l) => ([l[1], l[2]] = [l[2]!, l[1]!]), /:2 \(seq 3\): seq 3 where seq 2 was expected/],
  ['a duplicated event', (l) => l.splice(2, 0, l[1]!), /:3 \(seq 2\): seq 2 where seq 3 was expected \(an event is repeated or out of order\)/],
  ['a line that is not JSON', (l) => (l[3] = 'hello'), /:4: not valid JSON/],
  ['a newer schema version', (l) => (l[4] = l[4]!.replace('"v":1', '"v":3')), /:5 \(seq 5\): written with event schema version 3/],
];

for (const [name, tamper, expected] of TAMPERS) {
  test(`verify catches ${name}, names file, line and what, and writes nothing`, async () => {
    const state = await stateWithTwoPersonas();
    const file = eventLogPath(state, 'beta');
    editLines(file, tamper);
    const before = snapshot(state);

    const text = await verify(['--state-dir', state]);
    assert.equal(text.status, 1, text.stdout);
    assert.match(text.stdout, /^alpha {2}events {2}ok/m, 'the other persona is still checked and intact');
    assert.match(text.stdout, /^beta {2}events {2}FAILED/m);
    const finding = text.stdout.split('\n').find((line) => line.startsWith('  error: '));
    assert.ok(finding, text.stdout);
    assert.ok(finding.includes(`${path.relative(os.tmpdir(), file)}:`), `names the file (relative to the cwd): ${finding}`);
    assert.match(finding, expected);
    assert.match(text.stdout, /1 of 2 persona\(s\) failed/);

    const json = await verify(['--state-dir', state, '--json']);
    assert.equal(json.status, 1);
    const report = JSON.parse(json.stdout) as VerifyReport;
    const beta = report.personas.find((p) => p.id === 'beta')!;
    const first = beta.checks[0]!.findings[0]!;
    assert.equal(first.file, file);
    assert.equal(typeof first.line, 'number');
    assert.match(first.code ?? '', /^RTC_ERR_EVENTS_(CHAIN|CORRUPT|VERSION)$/);

    // The one file verify writes is the intact persona's verification record (features/verify/verified-record.ts):
    // the failed persona gets none, and no log is touched.
    const after = snapshot(state);
    assert.deepEqual([...after.keys()].filter((name) => name !== 'alpha/logs/verified.json'), [...before.keys()]);
    assert.ok(!after.has('beta/logs/verified.json'), 'a persona that failed records no verification');
    for (const [name, bytes] of before) assert.ok(after.get(name)!.equals(bytes), `${name} unchanged`);
  });
}

test('a torn tail is a warning: exit 0, and verify leaves it for the next open', async () => {
  const state = await stateWithTwoPersonas(2);
  const file = eventLogPath(state, 'alpha');
  fs.appendFileSync(file, '{"v":1,"seq":3,');
  const text = await verify(['--state-dir', state]);
  assert.equal(text.status, 0, text.stdout);
  assert.match(text.stdout, /warning: .*events\.jsonl:3: torn last line: 15 bytes/);
  assert.ok(fs.readFileSync(file, 'utf8').endsWith('{"v":1,"seq":3,'));
});

test('the state dir comes from --state-dir, else SCIDEX_AGENT_STATE_DIR, else ./state; a missing one is one line', async () => {
  const state = await stateWithTwoPersonas(1);
  const fromEnv = await verify([], { SCIDEX_AGENT_STATE_DIR: state });
  assert.equal(fromEnv.status, 0);
  assert.match(fromEnv.stdout, /2 persona\(s\) intact/);

  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const fromCwd = await verify([], {}, empty);
  assert.equal(fromCwd.status, 1);
  assert.equal(fromCwd.stderr, 'runtimectl: RTC_ERR_CLI_FILE_NOT_FOUND: state directory state does not exist; pass --state-dir DIR or set SCIDEX_AGENT_STATE_DIR\n');

  fs.renameSync(state, path.join(empty, 'state'));
  const rel = await verify([], {}, empty);
  assert.match(rel.stdout, /2 persona\(s\) intact/);
  assert.equal(rel.status, 0, rel.stderr);

  const bad = await verify(['--bogus']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^runtimectl: RTC_ERR_CLI_USAGE: .*--bogus/);
});

test('an empty state directory verifies with exit 0', async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const text = await verify(['--state-dir', state]);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /no personas under/);
});
