/**
 * What the evidence identifies and holds: a draft's input digest is unambiguous (issue 12
 * item 17: a file name holding a newline and a fake `sha256:… name` line made two different
 * trees digest alike), names that cannot be recorded as they are never reach the package,
 * and a draft's scratch is capped while the test writes (item 16: a test wrote 300 MB within
 * 1 s of CPU against a 1 MiB cap, and the rejected package kept it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { legacyTreeDigest, treeDigest } from '../evidence/digest.ts';
import { badNameReason } from '../snapshot.ts';
import { assertCompletePackage, check, gate, skillMd, tempDir, writeDraft } from './helpers.ts';

const sha = (data: string): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

test('two different trees never share a digest: a name forging a line, a file posing as a symlink, a reordering', () => {
  const a = sha('first');
  const b = sha('second');
  // The collision of the old line format, reproduced: one file whose name carries the second line.
  const two = [{ path: 'x', type: 'file' as const, sha256: a }, { path: 'y', type: 'file' as const, sha256: b }];
  const forged = [{ path: `x\n${b} y`, type: 'file' as const, sha256: a }];
  assert.equal(legacyTreeDigest(two), legacyTreeDigest(forged), 'format 1 was ambiguous');
  assert.notEqual(treeDigest(two), treeDigest(forged));
  // A file and a symlink whose target text has the same bytes.
  assert.notEqual(treeDigest([{ path: 'l', type: 'file', sha256: a }]), treeDigest([{ path: 'l', type: 'symlink', sha256: a }]));
  // Other separators and quotes in names.
  assert.notEqual(treeDigest([{ path: 'a"],["b', type: 'file', sha256: a }]), treeDigest([{ path: 'a', type: 'file', sha256: a }, { path: 'b', type: 'file', sha256: a }]));
  // Order of the entries given does not matter; their sorted order does.
  assert.equal(treeDigest([...two].reverse()), treeDigest(two));
});

test('names that cannot be recorded unambiguously are refused: control characters, separators, invalid UTF-8', () => {
  for (const name of ['a\nb', 'a\rb', 'tab\there', 'nul\u0000', 'del\u007f', 'c1\u0085', 'ls\u2028', 'back\\slash']) {
    assert.notEqual(badNameReason(Buffer.from(name, 'utf8')), null, JSON.stringify(name));
  }
  assert.match(badNameReason(Buffer.from([0x61, 0xff, 0x62]))!, /not valid UTF-8/);
  for (const name of ['SKILL.md', 'données.txt', '日本語.md', 'emoji-👍.txt', 'with space']) assert.equal(badNameReason(Buffer.from(name, 'utf8')), null, name);
});

test('a draft holding such names fails the snapshot; they are not copied and the rest is evaluated', async () => {
  const root = tempDir();
  const draft = writeDraft('odd-names', { 'SKILL.md': skillMd('odd-names') }, root);
  fs.writeFileSync(path.join(draft, `notes\n${sha('x')} SKILL.md`), 'forged line');
  fs.mkdirSync(path.join(draft, 'dir\twith-tab'));
  fs.writeFileSync(path.join(draft, 'dir\twith-tab', 'inner.txt'), 'hidden below a bad folder name');
  fs.writeFileSync(Buffer.concat([Buffer.from(`${draft}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'not UTF-8');
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  const snapshot = check(report, 'snapshot');
  assert.equal(snapshot.status, 'failed');
  assert.match(snapshot.reason, /notes\\nsha256:[0-9a-f]{64} SKILL\.md: bad-name \(the name holds the control character U\+000A; not copied\)/);
  assert.match(snapshot.reason, /dir\\twith-tab: bad-name/);
  assert.match(snapshot.reason, /bad-\uFFFD\uFFFD\.txt: bad-name \(the name is not valid UTF-8; not copied\)/);
  const manifest = assertCompletePackage(out, report);
  assert.deepEqual(manifest.input.files.map((f: { path: string }) => f.path), ['SKILL.md']);
  assert.equal(check(report, 'skill-manifest').status, 'passed', 'the rest of the draft is still evaluated');
});

test("a test writing without end is refused at the profile's scratch quota while it writes; the package holds at most the cap", async () => {
  const draft = writeDraft('scratch-flood', {
    'SKILL.md': skillMd('scratch-flood'),
    // Module level, as well as in a test: what a test file does on load counts the same.
    'tests/flood_test.ts': [
      'const dir = Deno.args[0];',
      "const chunk = 'x'.repeat(256 * 1024);",
      'let refused = "";',
      'try {',
      '  for (let i = 0; i < 1200; i++) await Deno.writeTextFile(`${dir}/f${i}`, chunk);',
      '} catch (e) {',
      '  refused = `${(e as Error).name} ${(e as { code?: string }).code}`;',
      '}',
      'console.log(`refused: ${refused}`);',
      '',
    ].join('\n'),
  });
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  const limits = check(report, 'resource-limits');
  assert.equal(limits.status, 'failed');
  assert.match(limits.reason, /tests\/flood_test\.ts \(pass-1\): 1 write\(s\) refused past the scratch quota \(1048576 bytes, 256 files and folders; 1048576 bytes and 4 entries held\)/);
  assert.match(check(report, 'denials').reason, /write ×\d+ \[fs\.writeFile .*f4 \(write-quota\)/);
  const tests = JSON.parse(fs.readFileSync(path.join(out, check(report, 'tests').output), 'utf8'));
  assert.match(tests.output.runs[0].stdout, /refused: Error ENOSPC/);
  const manifest = assertCompletePackage(out, report);
  for (const pass of ['pass-1', 'pass-2']) {
    const held = manifest.files.filter((f: { path: string }) => f.path.startsWith(`scratch/${pass}/`)).reduce((n: number, f: { bytes: number }) => n + f.bytes, 0);
    assert.ok(held <= 1048576, `${pass} holds ${held} bytes`);
  }
});

test('a plugin.yaml the parser cannot take (an alias bomb, a nesting too deep) is the manifest\'s own error, and nothing is read from it', async () => {
  const bomb = ['id: skill.bomb', 'a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`), ''].join('\n');
  for (const [name, yaml] of [['alias-bomb', bomb], ['deep-nesting', `${'['.repeat(20000)}${']'.repeat(20000)}\n`]] as const) {
    const draft = writeDraft(name, { 'SKILL.md': skillMd(name), 'plugin.yaml': yaml });
    const { report } = await gate('community-draft', draft);
    assert.equal(report.verdict, 'rejected', name);
    const manifest = check(report, 'skill-manifest');
    assert.equal(manifest.status, 'failed', name);
    assert.equal(manifest.internal, false, `${name}: a fault of the draft, not of the gate`);
    assert.match(manifest.reason, /^plugin\.yaml/, `${name}: ${manifest.reason}`);
    const permissions = check(report, 'permissions');
    assert.equal(permissions.status, 'unavailable', name);
    assert.match(permissions.reason, /plugin\.yaml did not validate, so its requests cannot be read/);
  }
});
