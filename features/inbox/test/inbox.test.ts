/**
 * Giving a persona work through the real CLI (issue 24 item 7): `inbox add` and `dm send` put
 * work where the loop's probes look, the next cycle takes it up, `inbox list` says what became
 * of it; what the persona could not use is refused with one line, and nothing half-written is
 * ever visible to a running persona.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../../test/support/cli.ts';
import { cycleEvents, fakeEnv, tempDir } from '../../science-loop/test/helpers.ts';
import { MAX_PACKET_BYTES } from '../../science-loop/probes.ts';

function orchestraProfile(dir: string, id: string): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(file, `id: ${id}\nruntime: agent-${id}\nbudget: { daily_tokens: 1000 }\nallow: { read: ["\${state}"], write: ["\${state}"], env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH] }\nbindings: [ledger]\n`);
  return file;
}

function oneLine(out: { status: number; stdout: string; stderr: string }, pattern: RegExp, what: string): void {
  assert.equal(out.status, 1, `${what}: ${out.stderr}${out.stdout}`);
  assert.equal(out.stderr.trimEnd().split('\n').length, 1, `${what}: one line: ${out.stderr}`);
  assert.match(out.stderr, pattern, what);
}

test('inbox add, dm send, a cycle, inbox list: the work reaches the executor and the list says it is done', async () => {
  const dir = tempDir('rtc-inbox-');
  orchestraProfile(dir, 'ada');
  writeFileSync(path.join(dir, 'question.md'), '# Which assay separates A from B?\n\ntier: 4\n');
  const env = fakeEnv();
  const o = { cwd: dir, env };
  const added = await runCli(['inbox', 'add', '--persona', 'ada.yaml', 'question.md', '--state-dir', 'state'], o);
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stdout, /^added: state\/ada\/inbox\/question\.md \(\d+ bytes\) "Which assay separates A from B\?"\n/);
  assert.match(added.stdout, /runtimectl inbox list --persona ada\.yaml --state-dir state/);
  const text = await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'Plan the next pilot.', '--title', 'Pilot plan', '--state-dir', 'state', '--json'], o);
  assert.equal(text.status, 0, text.stderr);
  const doc = JSON.parse(text.stdout) as { persona: string; added: { name: string; title: string; sha256: string }[] };
  assert.equal(doc.persona, 'ada');
  assert.equal(doc.added[0]!.title, 'Pilot plan');
  assert.match(doc.added[0]!.name, /^\d{4}-\d\d-\d\dT[\d-]+Z-pilot-plan\.md$/);
  assert.equal(readFileSync(path.join(dir, 'state', 'ada', 'inbox', doc.added[0]!.name), 'utf8'), '# Pilot plan\n\nPlan the next pilot.\n');
  const sent = await runCli(['dm', 'send', '--persona', 'ada.yaml', '--from', 'bo', '--subject', 'data', 'the pilot data is in the workspace', '--state-dir', 'state'], o);
  assert.equal(sent.status, 0, sent.stderr);
  assert.match(sent.stdout, /^queued for persona ada: state\/ada\/dm\/queue\.jsonl line 1, from bo/);

  const before = await runCli(['inbox', 'list', '--persona', 'ada.yaml', '--state-dir', 'state', '--json'], o);
  assert.equal(before.status, 0, before.stderr);
  const listed = JSON.parse(before.stdout) as { packets: { name: string; status: string }[]; messages: { queued: number; loaded: number } };
  assert.deepEqual(listed.packets.map((p) => p.status), ['waiting', 'waiting']);
  assert.deepEqual(listed.messages, { queued: 1, loaded: 0 });

  const ran = await runCli(['run', '--persona', 'ada.yaml', '--cycles', '1', '--state-dir', 'state'], o);
  assert.equal(ran.status, 0, ran.stderr);
  assert.match(ran.stdout, /created T-0001 "Work packet: Pilot plan", T-0002 "Work packet: Which assay separates A from B\?", T-0003 "Direct message: from bo: data"/);
  const cycle = cycleEvents(path.join(dir, 'state'), 'ada')[0]!;
  assert.match(JSON.stringify(cycle.probes), /loaded 2 new packet\(s\)/);
  assert.match(JSON.stringify(cycle.probes), /loaded 1 new message\(s\)/);

  const after = await runCli(['inbox', 'list', '--persona', 'ada', '--state-dir', 'state'], o);
  assert.equal(after.status, 0, after.stderr);
  assert.match(after.stdout, /question\.md\s+done\s+\d+ B\s+Which assay separates A from B\?/);
  assert.match(after.stdout, /direct messages: 1 queued, 1 loaded/);
  // No temp file is left behind, and nothing hidden ever reached the probe.
  assert.deepEqual(readdirSync(path.join(dir, 'state', 'ada', 'inbox')).filter((n) => n.startsWith('.')), []);
});

test('what the persona could not use is refused with one line, and nothing is written', async () => {
  const dir = tempDir('rtc-inbox-bad-');
  orchestraProfile(dir, 'ada');
  const o = { cwd: dir, env: fakeEnv() };
  const state = path.join(dir, 'state');
  writeFileSync(path.join(dir, 'big.md'), 'x'.repeat(MAX_PACKET_BYTES + 1));
  oneLine(await runCli(['inbox', 'add', '--persona', 'ada.yaml', 'big.md', '--state-dir', 'state'], o), /^runtimectl: RTC_ERR_WORK_REFUSED: big\.md is \d+ bytes, over the 65536-byte cap a persona loads/, 'too large');
  oneLine(await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'hi', '--name', '.hidden', '--state-dir', 'state'], o), /RTC_ERR_WORK_REFUSED: packet name "\.hidden" starts with "\."/, 'hidden');
  oneLine(await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'hi', '--name', '../escape.md', '--state-dir', 'state'], o), /RTC_ERR_WORK_REFUSED: packet name "\.\.\/escape\.md" (starts with|holds a slash)/, 'slash');
  assert.equal(existsSync(path.join(state, 'ada', 'escape.md')), false);
  // A typo of a persona: "did you mean", and no folder is made.
  oneLine(await runCli(['dm', 'send', '--persona', 'jeromee', 'hello', '--state-dir', 'state'], o), /RTC_ERR_PERSONA_NOT_FOUND: persona jeromee \(did you mean "jerome"\?\)/, 'typo');
  assert.equal(existsSync(path.join(state, 'jeromee')), false);
  const usage = await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'hi', 'file.md', '--state-dir', 'state'], o);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /give FILE\.\.\. or --text, not both/);

  // The same name twice: the same bytes are "already there", other bytes never overwrite it.
  assert.equal((await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'first', '--name', 'q.md', '--state-dir', 'state'], o)).status, 0);
  const again = await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'first', '--name', 'q.md', '--state-dir', 'state'], o);
  assert.equal(again.status, 0);
  assert.match(again.stdout, /^already in the inbox: /);
  oneLine(await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'second', '--name', 'q.md', '--state-dir', 'state'], o), /q\.md: a different packet is already there under that name; pick another --name/, 'collision');
  assert.equal(readFileSync(path.join(state, 'ada', 'inbox', 'q.md'), 'utf8'), 'first\n');
  // Bytes the persona has already loaded would be skipped by its probe: refused, with why.
  assert.equal((await runCli(['run', '--persona', 'ada.yaml', '--cycles', '1', '--state-dir', 'state'], o)).status, 0);
  oneLine(await runCli(['inbox', 'add', '--persona', 'ada.yaml', '--text', 'first', '--name', 'again.md', '--state-dir', 'state'], o), /RTC_ERR_WORK_REFUSED: packet again\.md: the persona has already loaded these exact bytes/, 'already loaded');

  // An inbox that is a link out of the persona's folder is never written through.
  const other = tempDir('rtc-inbox-elsewhere-');
  const linked = path.join(state, 'bo');
  mkdirSync(linked, { recursive: true });
  symlinkSync(other, path.join(linked, 'inbox'));
  writeFileSync(path.join(dir, 'bo.yaml'), 'id: bo\nruntime: operon\n');
  oneLine(await runCli(['inbox', 'add', '--persona', 'bo.yaml', '--text', 'hi', '--state-dir', 'state'], o), /RTC_ERR_WORK_REFUSED: .*bo\/inbox: is a symbolic link/, 'linked inbox');
  assert.deepEqual(readdirSync(other), []);
});

test('dm send after a hand-written line without its newline: the message is a line of its own and loads', async () => {
  const dir = tempDir('rtc-dm-');
  orchestraProfile(dir, 'ada');
  const o = { cwd: dir, env: fakeEnv() };
  const queue = path.join(dir, 'state', 'ada', 'dm', 'queue.jsonl');
  mkdirSync(path.dirname(queue), { recursive: true });
  appendFileSync(queue, '{"from":"hand","text":"written by hand"}');
  const sent = await runCli(['dm', 'send', '--persona', 'ada.yaml', '--state-dir', 'state', 'sent by the CLI'], { ...o, env: { ...o.env, USER: 'carol' } });
  assert.equal(sent.status, 0, sent.stderr);
  assert.match(sent.stdout, /line 2, from carol/);
  const lines = readFileSync(queue, 'utf8').split('\n');
  assert.equal(lines.length, 3);
  assert.deepEqual(JSON.parse(lines[1]!).text, 'sent by the CLI');
  const ran = await runCli(['run', '--persona', 'ada.yaml', '--cycles', '1', '--state-dir', 'state'], o);
  assert.match(ran.stdout, /"Direct message: from hand: written by hand", T-0002 "Direct message: from carol: sent by the CLI"/);
});
