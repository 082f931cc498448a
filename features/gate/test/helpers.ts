/** Shared by the gate tests: run the CLI in process, and check an evidence package on disk. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CliIo } from '../../command/command.ts';
import { main } from '../../../cli/main.ts';
import { sharedPath } from '../../../test/support/outside-material.ts';

export const REPO = path.resolve(import.meta.dirname, '../../..');
export const DRAFTS = path.join(REPO, 'test', 'fixtures', 'drafts');
export const CORPUS = sharedPath('corpus/anthropic-skills');

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
}

export async function cli(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}

export interface GateJson {
  verdict: string;
  exit_status: number;
  out: string;
  manifest: string;
  manifest_digest: string;
  checks: { name: string; status: string; reason: string; required: boolean; internal: boolean; not_evaluated: string[]; output: string; sha256: string }[];
  limitations: { check: string; kind: string; reason: string }[];
  proposal: { status: string; id?: string; reason?: string; queue?: string };
}

/** `runtimectl gate --json` in process; the exit status must be the one the verdict says. */
export async function gate(profile: string, target: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; report: GateJson; out: string }> {
  const out = path.join(tempDir(), 'evidence');
  const result = await cli(['gate', '--profile', profile, '--target', target, '--out', out, '--json', ...extra], REPO, env);
  assert.equal(result.stderr, '', 'a gate run that evaluated the draft prints nothing on stderr');
  const report = JSON.parse(result.stdout) as GateJson;
  assert.equal(result.status, report.exit_status);
  assert.equal(result.status, { accepted: 0, rejected: 1, incomplete: 3 }[report.verdict]);
  return { status: result.status, report, out };
}

export function check(report: GateJson, name: string): GateJson['checks'][number] {
  const found = report.checks.find((c) => c.name === name);
  assert.ok(found, `the report has a "${name}" check`);
  return found;
}

function sha(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/**
 * The package is complete and consistent: manifest.json hashes to the reported digest,
 * every file it lists exists with its digest (links by target text), every check's output
 * file is there, and the source copies match the input's per-file digests.
 */
export function assertCompletePackage(out: string, report: GateJson): Record<string, any> {
  const manifestText = fs.readFileSync(path.join(out, 'manifest.json'));
  assert.equal(sha(manifestText), report.manifest_digest);
  const manifest = JSON.parse(manifestText.toString('utf8'));
  assert.equal(manifest.verdict, report.verdict);
  assert.ok(manifest.files.length > 0);
  for (const file of manifest.files) {
    const full = path.join(out, file.path);
    const actual = file.type === 'symlink' ? sha(fs.readlinkSync(full)) : sha(fs.readFileSync(full));
    assert.equal(actual, file.sha256, `${file.path} matches its digest`);
  }
  const listed = new Set(manifest.files.map((f: { path: string }) => f.path));
  assert.equal(manifest.checks.length, manifest.gate.checks.length, 'every check of the profile has a result');
  for (const c of manifest.checks) {
    assert.ok(listed.has(c.output), `${c.output} is in the inventory`);
    assert.equal(sha(fs.readFileSync(path.join(out, c.output))), c.sha256);
    assert.ok(['passed', 'failed', 'not-applicable', 'unavailable'].includes(c.status));
  }
  for (const file of manifest.input.files) {
    const copy = path.join(out, manifest.input.copy, file.path);
    const actual = file.type === 'symlink' ? sha(fs.readlinkSync(copy)) : sha(fs.readFileSync(copy));
    assert.equal(actual, file.sha256, `the copy of ${file.path} matches`);
  }
  assert.match(manifest.kernel.version, /^\d+\.\d+\.\d+/);
  assert.equal(manifest.format, 'runtimectl-evidence/2');
  assert.ok(manifest.limitations.some((l: { check: string }) => l.check === 'gate'), 'every verdict says the prose is not proven safe');
  for (const plugin of manifest.gate.checks) assert.match(plugin.manifest_sha256, /^sha256:[0-9a-f]{64}$/, `${plugin.name} names its plugin manifest`);
  assert.match(manifest.gate.digest, /^sha256:[0-9a-f]{64}$/);
  return manifest;
}

/** Writes a draft folder from a map of relative paths to contents. */
export function writeDraft(name: string, files: Record<string, string | Buffer>, root = tempDir()): string {
  const dir = path.join(root, name);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

export function skillMd(name: string, body = 'A small skill used by the gate tests.'): string {
  return `---\nname: ${name}\ndescription: ${body}\n---\n\n# ${name}\n\n${body}\n`;
}

/** Copies a fixture draft into a temp folder (same folder name) so a test can add to it. */
export function copyDraft(name: string): string {
  const dir = path.join(tempDir(), name);
  fs.cpSync(path.join(DRAFTS, name), dir, { recursive: true });
  return dir;
}
