/**
 * A fresh clone's `npm test` passes without ../shared beside it, and CI (which has it and sets
 * RUNTIMECTL_REQUIRE_SHARED=1) cannot silently skip what reads it. Both hold only if every test
 * that reads ../shared goes through test/support/outside-material.ts: this file checks the
 * switch itself, and that no test source reaches ../shared any other way (two did, with their
 * own existsSync, and skipped in CI too).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedPath, skipWithoutShared } from '../support/outside-material.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

test('a missing ../shared folder is a skip with its reason, or a failure under RUNTIMECTL_REQUIRE_SHARED=1', () => {
  const rel = 'corpus/no-such-folder-for-this-test';
  const saved = process.env.RUNTIMECTL_REQUIRE_SHARED;
  try {
    delete process.env.RUNTIMECTL_REQUIRE_SHARED;
    assert.equal(skipWithoutShared(rel), `needs ${path.relative(REPO, sharedPath(rel))} (outside the repository; absent in this checkout)`);
    process.env.RUNTIMECTL_REQUIRE_SHARED = '1';
    assert.throws(() => skipWithoutShared(rel), /^Error: RUNTIMECTL_REQUIRE_SHARED=1 but this test needs \.\.\/shared\/corpus\/no-such-folder-for-this-test/);
  } finally {
    if (saved === undefined) delete process.env.RUNTIMECTL_REQUIRE_SHARED;
    else process.env.RUNTIMECTL_REQUIRE_SHARED = saved;
  }
});

/** Test sources (tests and their helpers) under the roots `npm test` runs. */
function testSources(): string[] {
  const out: string[] = [];
  for (const root of ['kernel', 'features', 'plugins', 'sandboxes', 'test', 'bench']) {
    for (const file of readdirSync(path.join(REPO, root), { recursive: true }) as string[]) {
      const parts = file.split(path.sep);
      if (parts.includes('node_modules') || parts.includes('fixtures')) continue;
      if (!/\.(ts|mts|mjs|js)$/.test(file) || !parts.includes('test') && !parts.includes('bench') && root !== 'test') continue;
      out.push(path.join(root, file));
    }
  }
  return out;
}

// The ways a path to ../shared is spelled: a literal "../shared/...", or the segments
// '..', 'shared' joined. Mentions in comments are fine; code is what is checked.
const REACHES_SHARED = [/['"`](?:\.\.\/)+shared(?:\/|['"`])/, /['"]\.\.['"]\s*,\s*['"]shared['"]/];

test('no test reaches ../shared except through test/support/outside-material.ts', () => {
  const offenders: string[] = [];
  const sources = testSources();
  assert.ok(sources.length > 100, `the test sources were found (${sources.length})`);
  for (const file of sources) {
    if (file === path.join('test', 'support', 'outside-material.ts')) continue;
    const code = readFileSync(path.join(REPO, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const lines = code.split('\n');
    lines.forEach((line, i) => {
      if (REACHES_SHARED.some((re) => re.test(line)) && !/skipWithoutShared/.test(code)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(offenders, [], 'read ../shared through sharedPath() and skip with skipWithoutShared()');
  // The check can fail: the spelling the two offenders used is caught.
  assert.ok(REACHES_SHARED.some((re) => re.test("path.resolve(import.meta.dirname, '../../../../shared/corpus/anthropic-skills')")));
  assert.ok(REACHES_SHARED.some((re) => re.test("path.resolve(REPO, '..', 'shared', 'corpus')")));
});
