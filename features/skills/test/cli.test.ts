/** `runtimectl skills list`, in process through main() with a captured io. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { skipWithoutShared } from '../../../test/support/outside-material.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: REPO, env: {} };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}

test("with no --dir it lists the repo's skills and exits 0", async () => {
  const { status, stdout, stderr } = await run(['skills', 'list']);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /^shared\/value-of-information-budgeting +Choose how much budget/m);
  assert.match(stdout, /\d+ skill\(s\) loaded, 0 refused/);
});

test('malformed skills: the rest are listed, each refusal is one stderr line, exit 1', async () => {
  const { status, stdout, stderr } = await run(['skills', 'list', '--dir', 'test/fixtures/skills/malformed']);
  assert.equal(status, 1);
  assert.match(stdout, /^shared\/good-skill /m);
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 10);
  assert.ok(lines.includes('runtimectl: refused skill: test/fixtures/skills/malformed/long-description/SKILL.md: description: must be at most 1024 characters'));
});

test('--json with two --dir gives one document with skills and refusals', { skip: skipWithoutShared('corpus/anthropic-skills') }, async () => {
  const { status, stdout } = await run(['skills', 'list', '--json', '--dir', 'skills', '--dir', '../shared/corpus/anthropic-skills']);
  assert.equal(status, 0);
  const doc = JSON.parse(stdout) as { skills: Array<{ id: string; file: string; digest: string }>; refused: unknown[] };
  assert.ok(doc.skills.length >= 11, 'the repo skills and the eight corpus skills');
  assert.deepEqual(doc.refused, []);
  assert.ok(doc.skills.some((s) => s.id === 'shared/mcp-builder' && s.file === '../shared/corpus/anthropic-skills/mcp-builder/SKILL.md'));
});

test('a missing --dir and an unknown flag are one-line errors', async () => {
  const missing = await run(['skills', 'list', '--dir', 'no/such/dir']);
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr, 'runtimectl: RTC_ERR_CLI_FILE_NOT_FOUND: --dir no/such/dir: no such directory\n');
  const flag = await run(['skills', 'list', '--bogus']);
  assert.equal(flag.status, 2);
  assert.equal(flag.stderr.split('\n').length, 2);
});
