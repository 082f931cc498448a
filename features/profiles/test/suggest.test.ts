import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closestMatch } from '../suggest.ts';

test('the suggestion helper suggests only when exactly one candidate is close', () => {
  assert.equal(closestMatch('jerme', ['jerome', 'mendel']), 'jerome');
  assert.equal(closestMatch('xyzzy', ['jerome', 'mendel']), undefined);
  assert.equal(closestMatch('ab', ['ac', 'ad']), undefined, 'two equally close: no guess');
  assert.equal(closestMatch('--cycle', ['--cycles', '--every']), '--cycles');
  assert.equal(closestMatch('jerome', ['jerome']), undefined, 'the word itself is not a typo');
});
