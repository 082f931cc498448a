/**
 * Issue 27 item 8: a skill's plugin.yaml is a plugin manifest, read with the one schema
 * (kernel/manifest/plugin-manifest.ts), and its `sandbox: trusted` does not put the skill's
 * scripts in the kernel's process by itself: only the persona profile's `trust:` naming the
 * manifest's id grants that (the operator's word), as for any plugin from outside the checkout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSkillCatalog } from '../catalog.ts';
import { skillScripts } from '../scripts.ts';

async function skillWith(manifest: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-skill-trust-'));
  const dir = path.join(root, 'risky');
  fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: risky\ndescription: Asks for more than it should.\n---\nBody.\n');
  fs.writeFileSync(path.join(dir, 'scripts', 'hello.ts'), 'console.log("hello");\n');
  fs.writeFileSync(path.join(dir, 'plugin.yaml'), manifest);
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  return catalog.skills.find((s) => s.name === 'risky')!;
}

const MANIFEST = 'id: skill.risky\nversion: 1.0.0\nkind: skill\ndescription: Its scripts.\nsandbox: trusted\npermissions: { read: ["${plugin}"] }\n';

test("a skill's sandbox: trusted runs its scripts isolated unless the persona's trust: names the manifest's id", async () => {
  const skill = await skillWith(MANIFEST);
  const [plain] = skillScripts(skill);
  assert.equal(plain!.refused, undefined);
  assert.deepEqual([plain!.profile, plain!.requestedProfile, plain!.manifestId], ['default', 'trusted', 'skill.risky'], 'isolated without a grant, and what it asked for is kept');
  assert.deepEqual(plain!.permissions, { read: ['${plugin}'] });
  const [other] = skillScripts(skill, ['skill.other']);
  assert.equal(other!.profile, 'default', 'a grant of another id grants nothing here');
  const [granted] = skillScripts(skill, ['skill.risky']);
  assert.deepEqual([granted!.profile, granted!.requestedProfile], ['trusted', undefined]);
  // Asking for the isolating tier needs no grant.
  const [modest] = skillScripts(await skillWith(MANIFEST.replace('sandbox: trusted', 'sandbox: community-draft')));
  assert.deepEqual([modest!.profile, modest!.requestedProfile], ['community-draft', undefined]);
});

test("a skill's plugin.yaml is checked by the one plugin manifest schema: unknown fields, another kind, a bad sandbox are refused naming the field", async () => {
  const cases: [string, RegExp][] = [
    [`${MANIFEST}colour: red\n`, /plugin\.yaml: \(root\): .*colour|plugin\.yaml: colour/],
    [MANIFEST.replace('kind: skill', 'kind: tool').replace('sandbox: trusted\n', ''), /plugin\.yaml: (kind: the plugin\.yaml beside a SKILL\.md is kind skill, not tool|entry: )/],
    [MANIFEST.replace('sandbox: trusted', 'sandbox: Trusted!'), /plugin\.yaml: sandbox: /],
    [MANIFEST.replace('id: skill.risky\n', ''), /plugin\.yaml: id: /],
    [MANIFEST.replace('sandbox: trusted', 'sandbox: nonesuch'), /RTC_ERR_PROFILE_UNKNOWN: no sandbox profile "nonesuch"/],
  ];
  for (const [text, reason] of cases) {
    const [spec] = skillScripts(await skillWith(text));
    assert.match(spec!.refused ?? '', /^its skill's manifest is refused: /, text);
    assert.match(spec!.refused ?? '', reason, text);
  }
});
