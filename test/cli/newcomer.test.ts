/**
 * What a newcomer hits (issue 12 items 19 and 20): a state directory that is a file, lies
 * under a file, under /proc, or does not exist; a file where a persona folder belongs; typos
 * in environment variables, skill names, persona ids, flags and subcommands. Each is one line
 * naming the path (or the word) and what is wrong, with one exit status per kind of error
 * across commands, "did you mean" where one candidate is close, and nothing created.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../cli/commands.ts';
import { runCli } from '../support/cli.ts';
import { fakeEnv, profile, run, tempDir } from '../../features/science-loop/test/helpers.ts';

/** Every command that takes --state-dir and reads an existing one, with the arguments it needs. */
const READERS: string[][] = [
  ['status'],
  ['activity'],
  ['verify'],
  ['replay'],
  ['proposals', 'list'],
  ['persistence', 'status'],
  ['ledger', 'list', '--persona', 'jerome'],
  ['events', 'repair', '--persona', 'jerome'],
];

function oneLine(out: { status: number; stdout: string; stderr: string }, status: number, pattern: RegExp, what: string): void {
  assert.equal(out.status, status, `${what}: ${out.stderr}${out.stdout}`);
  assert.equal(out.stderr.trimEnd().split('\n').length, 1, `${what}: one line: ${out.stderr}`);
  assert.match(out.stderr, pattern, what);
  assert.doesNotMatch(out.stderr, /internal error|\n\s+at /, what);
}

test('a state directory that is a file, below a file, or missing: one line, exit 1, from every command that reads it', async () => {
  const dir = tempDir('rtc-newcomer-state-');
  const file = path.join(dir, 'a-file');
  writeFileSync(file, 'not a folder\n');
  for (const argv of READERS) {
    const what = argv.join(' ');
    oneLine(await runCli([...argv, '--state-dir', file]), 1, /^runtimectl: RTC_ERR_STATE_DIR: state directory .*a-file: is a file, not a folder/, `${what} on a file`);
    oneLine(await runCli([...argv, '--state-dir', path.join(file, 'below')]), 1, /^runtimectl: RTC_ERR_STATE_DIR: state directory .*below: .*a-file is a file, not a folder/, `${what} below a file`);
    oneLine(await runCli([...argv, '--state-dir', path.join(dir, 'nope')]), 1, /^runtimectl: RTC_ERR_CLI_FILE_NOT_FOUND: state directory .*nope does not exist/, `${what} on a missing folder`);
    oneLine(await runCli([...argv, '--state-dir', '/proc/xyz']), 1, /^runtimectl: RTC_ERR_CLI_FILE_NOT_FOUND: state directory \/proc\/xyz does not exist/, `${what} under /proc`);
  }
  assert.equal(existsSync(path.join(dir, 'nope')), false, 'reading never creates the state directory');
});

test('run: under /proc, /sys or /dev (also through a link) it refuses at once, never spins; a file in the way is one line', async () => {
  const dir = tempDir('rtc-newcomer-run-');
  const p = profile(dir, 'newbie', 'runtime: agent-newbie');
  const link = path.join(dir, 'to-proc');
  (await import('node:fs')).symlinkSync('/proc', link);
  for (const state of ['/proc/xyz', '/sys/kernel/xyz', '/dev/xyz', path.join(link, 'self', 'xyz')]) {
    oneLine(await runCli(['run', '--persona', p.file, '--state-dir', state, '--cycles', '1'], { cwd: dir, env: fakeEnv() }), 1, /^runtimectl: RTC_ERR_STATE_DIR: state directory .*: is under \/(proc|sys|dev), which holds the system's own files/, state);
  }
  const file = path.join(dir, 'a-file');
  writeFileSync(file, 'x');
  oneLine(await runCli(['run', '--persona', p.file, '--state-dir', path.join(file, 'state'), '--cycles', '1'], { cwd: dir, env: fakeEnv() }), 1, /^runtimectl: RTC_ERR_STATE_DIR: state directory .*: .*a-file: is a file, not a folder/, 'below a file');
  // A file where the persona's folder belongs.
  const state = path.join(dir, 'state');
  mkdirSync(state);
  writeFileSync(path.join(state, 'newbie'), 'oops');
  oneLine(await runCli(['run', '--persona', p.file, '--state-dir', state, '--cycles', '1'], { cwd: dir, env: fakeEnv() }), 1, /^runtimectl: RTC_ERR_PERSONA_START: persona newbie: RTC_ERR_STATE_DIR: .*newbie: is a file where the folder of persona newbie belongs; move it aside/, 'persona file');
  oneLine(await runCli(['ledger', 'list', '--persona', 'newbie', '--state-dir', state]), 1, /is a file where the folder of persona newbie belongs/, 'ledger on a persona file');
});

test('a folder where a log file belongs is one line, not an internal error', async () => {
  const dir = tempDir('rtc-newcomer-log-');
  const state = path.join(dir, 'state');
  const p = profile(dir, 'logdir', 'runtime: agent-logdir');
  mkdirSync(path.join(state, 'logdir', 'logs', 'events.jsonl'), { recursive: true });
  for (const argv of [['run', '--persona', p.file, '--cycles', '1'], ['replay'], ['events', 'repair', '--persona', 'logdir']]) {
    const out = await runCli([...argv, '--state-dir', state], { cwd: dir, env: fakeEnv() });
    assert.notEqual(out.status, 0, argv.join(' '));
    assert.doesNotMatch(out.stderr, /internal error/, `${argv.join(' ')}: ${out.stderr}`);
    assert.match(out.stdout + out.stderr, /events\.jsonl: is a folder, not a regular file/, argv.join(' '));
  }
});

test('an unknown SCIDEX_AGENT_* variable stops the start, with "did you mean" for a near miss; nothing is created', async () => {
  const dir = tempDir('rtc-newcomer-env-');
  const p = profile(dir, 'envy', 'runtime: agent-envy');
  const state = path.join(dir, 'state');
  const cases: [string, RegExp][] = [
    ['SCIDEX_AGENT_DAILY_TOKEN_BUGDET', /SCIDEX_AGENT_DAILY_TOKEN_BUGDET \(did you mean "SCIDEX_AGENT_DAILY_TOKEN_BUDGET"\?\) is not a variable runtimectl reads/],
    ['SCIDEX_AGENT_CONTINUOS_EXECUTOR', /\(did you mean "SCIDEX_AGENT_CONTINUOUS_EXECUTOR"\?\)/],
    ['SCIDEX_AGENT_STATEDIR', /\(did you mean "SCIDEX_AGENT_STATE_DIR"\?\)/],
    ['SCIDEX_AGENT_FAVOURITE_COLOUR', /^runtimectl: RTC_ERR_ENV_INVALID: SCIDEX_AGENT_FAVOURITE_COLOUR is not a variable runtimectl reads/],
  ];
  for (const [name, pattern] of cases) {
    oneLine(await runCli(['run', '--persona', p.file, '--state-dir', state, '--cycles', '1'], { cwd: dir, env: fakeEnv({ [name]: '5' }) }), 1, pattern, name);
  }
  assert.equal(existsSync(state), false);
  // The real ones are read as before.
  const ok = await runCli(['run', '--persona', p.file, '--state-dir', state, '--cycles', '1'], { cwd: dir, env: fakeEnv({ SCIDEX_AGENT_DAILY_TOKEN_BUDGET: '5' }) });
  assert.equal(ok.status, 0, ok.stderr);
});

test('a skill named exactly that matches nothing stops the start (with "did you mean"); a glob that matches nothing does not', async () => {
  const dir = tempDir('rtc-newcomer-skill-');
  const state = path.join(dir, 'state');
  const typo = profile(dir, 'typo', 'runtime: agent-typo\nskills: [value-of-informaton-budgeting, shared/read-only-planing]');
  const [refused] = await run([typo], { stateDir: state });
  assert.deepEqual(refused!.refused, [
    `persona typo: ${typo.file}: skills[0]: "value-of-informaton-budgeting" matches no skill (did you mean "value-of-information-budgeting"?)`,
    `persona typo: ${typo.file}: skills[1]: "shared/read-only-planing" matches no skill (did you mean "shared/read-only-planning"?)`,
  ]);
  const nothing = profile(dir, 'nothing', 'runtime: agent-nothing\nskills: [quantum-gravity]');
  const [none] = await run([nothing], { stateDir: state });
  assert.match(none!.refused?.[0] ?? '', /skills\[0\]: "quantum-gravity" matches no skill$/);
  const glob = profile(dir, 'globby', 'runtime: agent-globby\nskills: [shared/*, persona/globby/*]');
  const [r] = await run([glob], { stateDir: state });
  assert.equal(r!.stopped, undefined);
  assert.equal(r!.refused, undefined, String(r!.refused));
});

test('flag typos are the kernel\'s one line, with "did you mean"; Node\'s parser text never shows', async () => {
  const cases: [string[], RegExp][] = [
    [['run', '--persona', 'jerome', '--cycle', '1'], /^runtimectl: RTC_ERR_CLI_USAGE: unknown option --cycle \(did you mean "--cycles"\?\); see "runtimectl run --help"\n$/],
    [['status', '--jsno'], /unknown option --jsno \(did you mean "--json"\?\)/],
    [['status', '--json=yes'], /--json takes no value \(it is a switch\)/],
    [['run', '--persona'], /--persona needs a value/],
    [['run', '--demo', '--every', '-1'], /^runtimectl: RTC_ERR_CLI_USAGE: --every -1: a value that starts with "-" is written --every=-1; see "runtimectl run --help"\n$/],
    [['verify', 'extra'], /unexpected argument "extra" \(this command takes options only\)/],
    [['run', '--persona', 'jerme'], /--persona jerme \(did you mean "jerome"\?\): no profile jerme\.yaml/],
  ];
  for (const [argv, pattern] of cases) {
    const out = await runCli(argv, { env: fakeEnv() });
    assert.equal(out.status, argv[0] === 'run' && argv.includes('jerme') ? 1 : 2, argv.join(' '));
    assert.match(out.stderr, pattern, argv.join(' '));
    assert.doesNotMatch(out.stderr, /To specify a positional argument|This command does not take positional arguments|argument missing/, argv.join(' '));
  }
});

test('a persona id typo is refused by every command that names one, with "did you mean", and creates no folder', async () => {
  const state = path.join(tempDir('rtc-newcomer-id-'), 'state');
  mkdirSync(path.join(state, 'jerome'), { recursive: true });
  for (const argv of [['activity'], ['replay'], ['ledger', 'list'], ['events', 'repair'], ['persistence', 'status'], ['proposals', 'list']]) {
    oneLine(await runCli([...argv, '--persona', 'jerom', '--state-dir', state]), 1, /RTC_ERR_PERSONA_NOT_FOUND: persona jerom \(did you mean "jerome"\?\) has no folder/, argv.join(' '));
  }
  oneLine(await runCli(['proposals', 'submit', '--persona', 'jeromee', '--kind', 'memory-promotion', '--text', 'x', '--evidence', `x@sha256:${'1'.repeat(64)}`, '--state-dir', state]), 1, /persona jeromee \(did you mean "jerome"\?\) has no folder .* and no profile; nothing was created/, 'submit');
  assert.deepEqual(readdirSync(state), ['jerome']);
});

test('every command group without a verb prints its help; an unknown verb is one line with "did you mean"', async () => {
  const groups = [...new Set(COMMANDS.filter((c) => c.path.length === 2).map((c) => c.path[0]!))];
  assert.ok(groups.length >= 10, groups.join(' '));
  for (const group of groups) {
    const bare = await runCli([group]);
    assert.equal(bare.status, 2, group);
    // A group that is also a command taking flags (archive --persona ID) shows its own usage, which names its verbs.
    const own = COMMANDS.some((c) => c.path.length === 1 && c.path[0] === group && c.takesFlags);
    assert.match(bare.stdout, new RegExp(`^Usage: runtimectl ${group} ${own ? '--' : '<command>'}`), group);
    const verbs = COMMANDS.filter((c) => c.path.length === 2 && c.path[0] === group).map((c) => c.path[1]!);
    for (const verb of verbs) assert.ok(bare.stdout.includes(verb), `${group} help names ${verb}`);
    assert.equal((await runCli([group, '--help'])).status, 0, group);
    const typo = `${verbs[0]!.slice(0, -1)}x`;
    const wrong = await runCli([group, typo]);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, new RegExp(`^runtimectl: RTC_ERR_CLI_USAGE: unknown ${group} command "${typo}"`));
  }
  assert.match((await runCli(['proposal'])).stderr, /unknown command "proposal" \(did you mean "proposals"\?\)/);
});
