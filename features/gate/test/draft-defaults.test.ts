/**
 * Issue 24 item 5: a draft whose plugin.yaml asks for nothing is not rejected for "asking for
 * trusted". A manifest without `sandbox:` runs under "default" (the isolating tier), so only a
 * draft that names an in-process profile itself asks for more than the gate's sandbox.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, gate, skillMd, writeDraft } from './helpers.ts';

function draft(name: string, sandbox: string): string {
  return writeDraft(name, {
    'SKILL.md': skillMd(name),
    'plugin.yaml': `id: skill.${name}\nversion: 0.1.0\nkind: skill\nentry: mod.ts\ndescription: Counts words.\n${sandbox}exports: [countWords]\n`,
    'mod.ts': 'export function countWords(text: string): number { return text.split(/\\s+/).filter(Boolean).length; }\n',
  });
}

test('a draft plugin.yaml that asks for nothing passes the permissions check; naming the trusted tier is what it asks for', async () => {
  const modest = await gate('community-draft', draft('modest', ''));
  const permissions = check(modest.report, 'permissions');
  assert.equal(permissions.status, 'passed', permissions.reason);
  assert.doesNotMatch(JSON.stringify(modest.report), /asks for "trusted"/);

  const eager = await gate('community-draft', draft('eager', 'sandbox: trusted\n'));
  const refused = check(eager.report, 'permissions');
  assert.equal(refused.status, 'failed');
  assert.match(refused.reason, /sandbox: asks for "trusted" \(in-process isolates, for first-party code\); a draft evaluated under "community-draft" runs in the process tier/);
  assert.equal(eager.report.verdict, 'rejected');
});
