/**
 * Bad input around the OS sandbox, each a one-line refusal recorded with the session, never
 * an unsandboxed run nobody asked for: bubblewrap missing, a grant the sandbox cannot express,
 * a provider home that is not a writable folder. And the one way to run without it: the
 * profile's `os_sandbox: off`, said in every cycle.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { personaPaths, workspaceDir } from '../../features/persona-layout/layout.ts';
import { cycleLine } from '../../features/science-loop/summary.ts';
import { budgeted, cycleEvents, fakeEnv, fakeTime, packet, profile, readJson, run, tempDir } from '../../features/science-loop/test/helpers.ts';

test('without bubblewrap the session is refused with a one-line reason, audited, and the CLI never runs', async () => {
  const dir = tempDir('rtc-nobwrap-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.codex')], { stateDir, env: fakeEnv({ RUNTIMECTL_BWRAP: path.join(dir, 'no-such-bwrap') }), ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.match(report.defer_reason ?? '', /^codex: NotSupported: Failed to spawn 'codex': RTC_ERR_OSBOX_UNAVAILABLE: bubblewrap \(bwrap\) is not installed at .*no-such-bwrap; install Debian's bubblewrap, or opt out with os_sandbox: off in the profile$/);
  assert.equal(existsSync(path.join(workspaceDir(personaPaths(stateDir, 'ada')), 'fake-codex-prompt.txt')), false, 'nothing ran unsandboxed');
  const event = cycleEvents(stateDir, 'ada')[0]!;
  assert.ok(event.audit.denied.includes('executor.codex run.output run:codex'), JSON.stringify(event.audit));
  assert.equal(readJson(path.join(stateDir, event.executor_session.manifest_path)).status, 'failed');
  // the work is not lost: it is offered again next cycle
  assert.deepEqual(report.act.done, []);
});

test('a grant the sandbox cannot express is refused before anything runs: write without read', async () => {
  const dir = tempDir('rtc-badgrant-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'cy', 'q.md', '# Q\n');
  // The persona lets its plugins write its whole folder but read only the session folders:
  // the workspace would be writable and unreadable, which no bind mount can give.
  const p = profile(
    dir,
    'cy',
    `runtime: agent-cy
executor: { plugin: executor.command, config: { command: sh, args: ["-c", "touch ran.txt"], spends_tokens: false } }
allow: { read: ["\${session}"], write: ["\${state}"], run: [sh] }`,
  );
  const [r] = await run([p], { stateDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.match(report.defer_reason ?? '', /^sh: NotCapable: Failed to spawn 'sh': RTC_ERR_OSBOX_GRANT: <state>\/cy\/brain\/[\w/]+ is writable but not readable under this grant; bind mounts cannot give write without read/);
  assert.equal(existsSync(path.join(workspaceDir(personaPaths(stateDir, 'cy')), 'ran.txt')), false);
});

test('a provider home that is not a writable folder stops the session with a one-line error', async () => {
  const dir = tempDir('rtc-home-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const home = path.join(personaPaths(stateDir, 'ada').dir, 'brain', 'providers', 'codex');
  mkdirSync(path.dirname(home), { recursive: true });
  writeFileSync(home, 'a file where the folder should be');
  const [r] = await run([budgeted(dir, 'ada', 'executor.codex')], { stateDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.match(report.defer_reason ?? '', /^RTC_ERR_EXECUTOR_PROVIDER_HOME: provider home ada\/brain\/providers\/codex: cannot be created \(EEXIST\)$|^RTC_ERR_EXECUTOR_PROVIDER_HOME: provider home ada\/brain\/providers\/codex: is not a folder/);
  assert.equal(existsSync(path.join(workspaceDir(personaPaths(stateDir, 'ada')), 'fake-codex-prompt.txt')), false);
});

test('a provider home that is a link out of the persona is refused', async () => {
  const dir = tempDir('rtc-home-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const home = path.join(personaPaths(stateDir, 'ada').dir, 'brain', 'providers', 'codex');
  mkdirSync(path.dirname(home), { recursive: true });
  mkdirSync(path.join(dir, 'operator-codex-home'));
  symlinkSync(path.join(dir, 'operator-codex-home'), home);
  const [r] = await run([budgeted(dir, 'ada', 'executor.codex')], { stateDir, ...fakeTime() });
  assert.match(r!.reports[0]!.defer_reason ?? '', /RTC_ERR_EXECUTOR_PROVIDER_HOME: .*is not a folder \(a link or a file stands there\)/);
});

test('os_sandbox: off runs the session unsandboxed, and every cycle says so in its event and its line', async () => {
  const dir = tempDir('rtc-off-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const p = profile(
    dir,
    'ada',
    `runtime: agent-ada
os_sandbox: off
executor: { plugin: executor.codex }
budget: { daily_tokens: 200000 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }`,
  );
  // even with bubblewrap missing: the operator opted out
  const [r] = await run([p], { stateDir, cycles: 2, env: fakeEnv({ RUNTIMECTL_BWRAP: path.join(dir, 'no-such-bwrap') }), ...fakeTime() });
  const [first, second] = r!.reports;
  assert.equal(first!.outcome, 'executed');
  for (const report of [first!, second!]) {
    assert.ok((report.payload.problems as string[]).includes("os_sandbox: off (the profile opts out): this persona's subprocesses run without the OS sandbox"));
    assert.match(cycleLine(report), /^ada #\d \w+ \w+ \[os_sandbox: off\]: /);
  }
  const event = cycleEvents(stateDir, 'ada')[0]!;
  assert.equal(event.executor.os_sandbox, 'off');
  assert.equal(event.executor_session.os_sandbox.mode, 'off');
});
