/** history.yaml is checked when read: each bad file is one RTC_ERR_HISTORY_CONFIG line naming the file and what is wrong. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readHistoryConfig } from '../policy.ts';

function personaWith(history: string | undefined): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-history-policy-'));
  if (history !== undefined) fs.writeFileSync(path.join(dir, 'history.yaml'), history);
  return dir;
}

test('no history.yaml: the defaults; a valid one is read', () => {
  assert.equal(readHistoryConfig(personaWith(undefined)).source, 'default');
  const read = readHistoryConfig(personaWith('schema_version: 1\nsegments: { max_bytes: 16384, rotate: size }\n'));
  assert.equal(read.source, 'file');
  assert.equal(read.segments.max_bytes, 16384);
});

test('a bad history.yaml is refused with RTC_ERR_HISTORY_CONFIG, naming the file and the field, and left as it is', () => {
  const cases: [string, RegExp][] = [
    ['schema_version: 1\nsegments: { max_bytes: lots }\n', /history\.yaml: segments\.max_bytes: /],
    ['schema_version: 99\n', /history\.yaml: schema version 99 is newer than the 1 this runtimectl supports \(the file was left untouched\)/],
    ['schema_version: 1\nretention: { mode: archive, after_days: 1, to: relative/dir, format: folder }\n', /history\.yaml: retention\.to: must be an absolute path \(got "relative\/dir"\)/],
  ];
  for (const [text, message] of cases) {
    const dir = personaWith(text);
    assert.throws(() => readHistoryConfig(dir), { code: 'RTC_ERR_HISTORY_CONFIG', message, details: { file: 'history.yaml' } }, text);
    assert.equal(fs.readFileSync(path.join(dir, 'history.yaml'), 'utf8'), text);
  }
});
