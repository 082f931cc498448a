/**
 * Secrets reach nothing the kernel writes or prints (issue 12 item 13). The values of the
 * variables a persona's profile hands its plugins are secrets by value, whatever they look
 * like; common token shapes (sk-, hf_, bearer headers, ...) are secrets by pattern. An
 * executor that prints them (on stderr, in its reply, in its JSON events) leaves no copy in
 * the event log, the trace or its blobs (also base64-encoded command output), the session
 * files, brain.json, the ledger, or `run`'s output; token counts stay intact; replay still
 * matches byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scrubber, SecretValues } from '../../secret-values/secret-values.ts';
import { scrubString } from '../../../kernel/redact/strings.ts';
import { runCli } from '../../../test/support/cli.ts';
import { cycleEvents, fakeEnv, packet, profile, run, tempDir } from './helpers.ts';

const SECRETS = {
  OPENAI_API_KEY: 'sk-proj-Zq81nVtXo4LmWcE2yTgR7aPb9KdHs3Uf',
  // by value: nothing about it looks like a secret
  MY_PLAIN_SECRET: 'correct horse battery staple',
  // needs JSON escaping wherever it is written as JSON
  QUOTED_SECRET: 'pa"ss\\wo\'rd-Δ-2026',
  // picked up by a prefix pattern in the profile (HF_*)
  HF_TOKEN: 'hf_kGzVbQpLmNtRwXyAsDfGhJkLzXcVbNmQwErT',
};
/** A token that comes from nowhere in the env: only its shape gives it away. */
const STRAY_HF = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
/** Digits only: never treated as a secret, so the token count equal to it survives. */
const NUMBER_ENV = { SMALL_NUMBER: '4321' };

const SCRIPT = `#!/bin/sh
echo "Authorization: Bearer $OPENAI_API_KEY" >&2
echo "using $MY_PLAIN_SECRET and $QUOTED_SECRET and $HF_TOKEN" >&2
printf '{"type":"item.completed","item":{"type":"agent_message","text":"done with %s; plain %s; quoted %s; hf %s; stray %s"}}\\n' "$OPENAI_API_KEY" "$MY_PLAIN_SECRET" "$(printf '%s' "$QUOTED_SECRET" | sed 's/\\\\/\\\\\\\\/g; s/"/\\\\"/g')" "$HF_TOKEN" "$(printf 'hf_%s' '${STRAY_HF.slice(3)}')"
echo '{"type":"turn.completed","usage":{"input_tokens":4000,"output_tokens":321,"total_tokens":4321}}'
`;

function allFiles(dir: string, skip: (rel: string) => boolean, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(base, full);
    if (skip(rel)) continue;
    if (entry.isDirectory()) out.push(...allFiles(full, skip, base));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** Every form a secret could be written in: raw, JSON-escaped, and inside any base64 run. */
function leaks(text: string, values: string[]): string[] {
  const found: string[] = [];
  const decoded = [...text.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('utf8'));
  for (const value of values) {
    const forms = [value, JSON.stringify(value).slice(1, -1), JSON.stringify(JSON.stringify(value)).slice(1, -1)];
    if (forms.some((f) => text.includes(f)) || decoded.some((d) => d.includes(value))) found.push(value);
  }
  return found;
}

function secretPersona(dir: string, id: string) {
  // The script is given inline (the executor's OS sandbox shows it nothing outside its session),
  // so the profile holds it: the stray token is assembled by the shell, never written in it.
  return profile(
    dir,
    id,
    `runtime: agent-${id}
executor:
  plugin: executor.command
  config: { command: sh, args: ["-c", ${JSON.stringify(SCRIPT)}], usage_format: codex-json, spends_tokens: true }
budget:
  daily_tokens: 200000
  max_tokens_per_session: 50000
  min_tokens_remaining_for_executor: 1000
allow:
  read: ["\${state}"]
  write: ["\${state}"]
  run: [sh]
env: [OPENAI_API_KEY, MY_PLAIN_SECRET, QUOTED_SECRET, SMALL_NUMBER, "HF_*"]
bindings: [ledger, events, memory]`,
  );
}

test('an executor printing its keys leaves no copy anywhere in the state directory, in any encoding; token counts intact; replay matches', async () => {
  const dir = tempDir('rtc-secrets-');
  const state = path.join(dir, 'state');
  const persona = secretPersona(dir, 'leaky');
  packet(state, 'leaky', 'q.md', `# Summarize the run\n\nuse the token ${STRAY_HF} if you must\n`);
  const env = fakeEnv({ ...SECRETS, ...NUMBER_ENV, UNRELATED_HOST_SECRET: 'not-handed-to-this-persona-123' });
  const [r] = await run([persona], { stateDir: state, env, cycles: 2 });
  assert.equal(r!.stopped, undefined);
  assert.equal(r!.reports[0]!.outcome, 'executed', JSON.stringify(r!.reports[0]!.act));

  const files = allFiles(state, (rel) => rel.startsWith(path.join('leaky', 'inbox')) || rel.includes(`${path.sep}workspace${path.sep}`));
  assert.ok(files.some((f) => f.endsWith('stderr.txt')) && files.some((f) => f.includes(`${path.sep}trace${path.sep}`)) && files.some((f) => f.endsWith('brain.json')), 'the sinks exist');
  const values = [...Object.values(SECRETS), STRAY_HF];
  for (const file of files) {
    const bytes = readFileSync(file);
    assert.deepEqual(leaks(bytes.toString('utf8'), values), [], `${path.relative(state, file)} holds a secret`);
  }
  // What they were replaced by names the variable (never the value).
  const stderr = files.find((f) => f.endsWith('stderr.txt'))!;
  assert.match(readFileSync(stderr, 'utf8'), /using \[REDACTED:MY_PLAIN_SECRET\] and \[REDACTED:QUOTED_SECRET\] and \[REDACTED:HF_TOKEN\]/);
  assert.match(readFileSync(stderr, 'utf8'), /^Authorization: \[REDACTED\]$/m);

  const cycle = cycleEvents(state, 'leaky')[0]!;
  assert.equal(cycle.provider_usage.total_tokens, 4321, 'token counts are never scrubbed, not even one equal to a (digits-only) env value');
  assert.equal(cycle.provider_usage.input_tokens, 4000);
  assert.match(cycle.executor_session.last_message, /done with \[REDACTED:OPENAI_API_KEY\]; plain \[REDACTED:MY_PLAIN_SECRET\]/);
  const brain = JSON.parse(readFileSync(path.join(state, 'leaky', 'brain', 'memory', 'brain.json'), 'utf8'));
  assert.equal(brain.medium_term.tokens_spent_total, 4321);
  assert.match(brain.short_term.last_message, /\[REDACTED:OPENAI_API_KEY\]/);

  const replay = await runCli(['replay', '--state-dir', state, '--persona', 'leaky', '--all'], { env });
  assert.equal(replay.status, 0, replay.stdout + replay.stderr);
  assert.deepEqual(leaks(replay.stdout + replay.stderr, values), []);
});

test("run's own output (lines and --json) carries no secret", async () => {
  const dir = tempDir('rtc-secrets-cli-');
  const state = path.join(dir, 'state');
  const persona = secretPersona(dir, 'chatty');
  packet(state, 'chatty', 'q.md', '# Go\n');
  const env = fakeEnv({ ...SECRETS, ...NUMBER_ENV });
  for (const flags of [['--summary'], ['--json']]) {
    const out = await runCli(['run', '--persona', persona.file, '--state-dir', state, '--cycles', '1', '--every', '0', ...flags], { env, cwd: dir });
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(leaks(out.stdout + out.stderr, Object.values(SECRETS)), [], out.stdout);
  }
});

test('the scrub: by value (any shape, JSON-escaped, in bytes), by pattern, idempotent, and numbers untouched', () => {
  const secrets = SecretValues.fromEnv({ ...SECRETS, ...NUMBER_ENV, SHORT: 'abc', PATH: '/usr/bin' }, ['PATH']);
  assert.deepEqual(secrets.names.sort(), Object.keys(SECRETS).sort(), 'short and digits-only values, and excluded names, are not secrets');
  const s = scrubber(secrets);
  const record = { text: `k=${SECRETS.OPENAI_API_KEY} ${SECRETS.QUOTED_SECRET}`, total_tokens: 4321, nested: [{ [SECRETS.MY_PLAIN_SECRET]: STRAY_HF }] };
  const clean = s.deep(record);
  assert.deepEqual(clean, { text: 'k=[REDACTED:OPENAI_API_KEY] [REDACTED:QUOTED_SECRET]', total_tokens: 4321, nested: [{ '[REDACTED:MY_PLAIN_SECRET]': '[REDACTED]' }] });
  assert.equal(s.deep(clean), clean, 'a second pass changes nothing');
  const json = JSON.stringify(record);
  assert.equal(s.json(json), JSON.stringify(clean));
  assert.equal(s.json(s.json(json)), s.json(json));
  assert.equal(s.bytes(Buffer.from(`x${SECRETS.QUOTED_SECRET}y`)).toString(), 'x[REDACTED:QUOTED_SECRET]y');
  // Pattern rules cover tokens nobody handed the persona.
  for (const token of [STRAY_HF, 'glpat-abcdefghij0123456789', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', 'sk_live_abcdefghijklmnopqrstuvwx', 'ya29.a0AfH6SMBabcdefghijklmnop', 'gsk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH']) {
    assert.equal(scrubString(`the key ${token} here`), 'the key [REDACTED] here', token);
  }
  assert.equal(scrubString('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'), '[REDACTED]');
  assert.equal(scrubString('hf_short and total_tokens: 1234'), 'hf_short and total_tokens: 1234');
});
