/**
 * The review loop end to end through the real CLI (issue 24, items 1 and 2): a spawned
 * `runtimectl run` runs two personas whose agents propose, one through the proposals binding
 * (a plugin) and one through the review.propose MCP tool (an executor session); the operator
 * sees the proposals (`proposals list`), makes a credential while the kernel runs (`operator
 * init`) and accepts them; the running kernel applies both at its next boundary, and `run`,
 * `status` and `logs` say so. Then a decision by an operator the kernel does not trust is
 * held, loudly in `run`'s output, `status` and `logs`, until `operator trust` on the kernel's
 * machine, after which it is applied, without a restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { OPERATOR_HOME_ENV, publicKeyPem } from '../../review-queue/index.ts';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { NO_OS_SANDBOX } from '../../../test/support/os-sandbox.ts';
import { tempDir } from '../../science-loop/test/helpers.ts';
import { agentNotes, binderProfile, FAKE_BIN, mcpProfile, packet, proposerPlugin } from './agents.ts';

async function cli(args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: os.tmpdir(), env };
  const status = await main(args, io);
  return { status, stdout, stderr };
}

test('agent proposes (binding and MCP tool) → operator sees it → operator init while the kernel runs → accepts → applied at the next boundary; an untrusted decision is held and loud until operator trust', { skip: NO_OS_SANDBOX, timeout: 900_000 }, async () => {
  const dir = tempDir('rtc-review-loop-');
  const state = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  proposerPlugin(plugins);
  const binder = binderProfile(dir);
  const talker = mcpProfile(dir);
  packet(state, 'binder');
  packet(state, 'talker');
  agentNotes(state);
  // The kernel's operator folder: empty at start (nobody trusted yet).
  const home = mkdtempSync(path.join(os.tmpdir(), 'rtc-loop-operators-'));
  const env = { PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: os.tmpdir(), [OPERATOR_HOME_ENV]: home };
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(PROJECT_ROOT, 'bin', 'runtimectl.js'), 'run', '--persona', binder, '--persona', talker, '--every', '1', '--plugins-dir', plugins, '--state-dir', state], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const saw = async (pattern: RegExp, what: string, ms = 240_000) => {
    const end = Date.now() + ms;
    while (!pattern.test(out)) {
      if (child.exitCode !== null) assert.fail(`run exited (${child.exitCode}) before ${what}:\n${out}\n${err}`);
      if (Date.now() > end) assert.fail(`run never printed ${what}:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    // The agents propose in their first cycle; run says so.
    await saw(/^binder #1: proposed P-binder-1; it waits for an operator/m, 'the plugin\'s proposal');
    await saw(/^talker #1: proposed P-talker-1; it waits for an operator/m, 'the session\'s proposal');
    assert.match(out, /^binder #1: 3 proposal\(s\) refused this cycle/m);

    // The operator sees them, with who proposed.
    const list = await cli(['proposals', 'list', '--state-dir', state], env);
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, /^P-binder-1  pending +memory-promotion  plugin:executor\.proposer  Assay B separates A from B/m);
    assert.match(list.stdout, /^P-talker-1  pending +memory-promotion  agent:executor\.command  The agent says/m);
    const show = await cli(['proposals', 'show', 'P-talker-1', '--state-dir', state], env);
    assert.match(show.stdout, /proposer: +agent:executor\.command \(via mcp, tool review\.propose, session c000001-command, cycle 1\)/);
    assert.match(show.stdout, /brain\/workspace\/workspaces\/main\/notes\.md  sha256:/);

    // No credential yet: accepting is refused. The operator makes one while the kernel runs, and accepts.
    const before = await cli(['proposals', 'accept', 'P-binder-1', '--state-dir', state], env);
    assert.equal(before.status, 1);
    assert.match(before.stderr, /RTC_ERR_REVIEW_OPERATOR: no operator credential/);
    assert.equal((await cli(['operator', 'init', '--name', 'alice'], env)).status, 0);
    for (const id of ['P-binder-1', 'P-talker-1']) {
      const accepted = await cli(['proposals', 'accept', id, '--reason', 'the evidence holds', '--state-dir', state], env);
      assert.equal(accepted.status, 0, accepted.stderr);
    }
    await saw(/^binder #\d+: applied accepted proposal P-binder-1 at this cycle's boundary/m, 'P-binder-1 applied');
    await saw(/^talker #\d+: applied accepted proposal P-talker-1 at this cycle's boundary/m, 'P-talker-1 applied');
    assert.match((await cli(['proposals', 'show', 'P-binder-1', '--state-dir', state], env)).stdout, /accepted \(applied\)/);
    const logs = await cli(['logs', '--persona', 'binder', '--tail', 'all', '--state-dir', state], env);
    assert.match(logs.stdout, /operator_trust_changed the operator trust list \(operators\.json\) changed: trusted now alice/);
    assert.match(logs.stdout, /proposal_submitted P-binder-1 memory-promotion proposed by plugin:executor\.proposer \(via binding, cycle 1\)/);
    assert.match(logs.stdout, /proposal_input_refused a proposal from plugin:executor\.proposer \(via binding, cycle 1\) refused \(evidence\): evidence "\/etc\/passwd" is not a file or event of the persona/);
    assert.match(logs.stdout, /proposal_state P-binder-1 pending → accepted by alice \(signed\): the evidence holds/);
    assert.match(logs.stdout, /proposal_applied P-binder-1 \(memory-promotion, accepted by alice\) applied: appended \d+ bytes to brain\/memory\/long-term\.md/);
    const json = (await cli(['logs', '--persona', 'binder', '--tail', 'all', '--json', '--state-dir', state], env)).stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    assert.ok(json.some((e) => e.type === 'proposal_state' && e.payload.mirrored === true && e.payload.by === 'alice'));

    // bob decides with his own credential, which this kernel does not trust: held, and said everywhere.
    const bob = makeOperators(['bob']).bob!;
    packet(state, 'binder', 'second.md');
    await saw(/^binder #\d+: proposed P-binder-2/m, 'the second proposal');
    assert.equal((await cli(['proposals', 'accept', 'P-binder-2', '--state-dir', state], { ...env, ...bob.env })).status, 0);
    await saw(/^binder #\d+: ALERT decision_not_ratified: P-binder-2 was recorded as accepted by bob but is not applied: .*not a trusted operator's \(trusted: alice\)/m, 'the alert');
    await saw(/^binder #\d+: HELD P-binder-2: /m, 'the held line');
    const status = await cli(['status', '--state-dir', state], env);
    assert.match(status.stdout, /REVIEW/);
    assert.match(status.stdout, /^binder .* 1 HELD/m);
    assert.match(status.stdout, /^ {2}binder {2}HELD P-binder-2: P-binder-2 was recorded as accepted by bob/m);
    const held = await cli(['logs', '--persona', 'binder', '--tail', '20', '--state-dir', state], env);
    assert.match(held.stdout, /operator_alert ALERT decision_not_ratified: P-binder-2 was recorded as accepted by bob/);
    assert.match((await cli(['proposals', 'list', '--persona', 'binder', '--state-dir', state], env)).stdout, /^P-binder-2  accepted \(HELD: not applied\)/m);

    // alice trusts bob on the kernel's machine: applied at the next boundary, no restart.
    const pem = path.join(dir, 'bob.pem');
    writeFileSync(pem, publicKeyPem(bob.key));
    assert.equal((await cli(['operator', 'trust', '--name', 'bob', '--public-key', pem], env)).status, 0);
    await saw(/^binder #\d+: applied accepted proposal P-binder-2 at this cycle's boundary/m, 'P-binder-2 applied');
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, `run exits 0 after SIGINT:\n${err}`);
});
