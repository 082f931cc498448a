/**
 * The soak's arithmetic (bench/lib/soak): the pooled within-life slope ignores the level each
 * kill -9 restart starts at and finds the growth every life shares; the options refuse what
 * cannot run. (The soak itself is a benchmark, run by name: npm run bench -- --only=soak.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pooledSlope } from '../../bench/lib/soak/slopes.ts';
import { SOAK_DEFAULTS, soakOptions } from '../../bench/lib/soak/options.ts';

test('pooled slope: lives at different levels with the same growth give that growth, not the jump between them', () => {
  const points = [
    ...[0, 1, 2, 3].map((x) => ({ life: 0, x, y: 100 + 2 * x })),
    ...[0, 1, 2, 3].map((x) => ({ life: 1, x, y: 300 + 2 * x })),
  ];
  const fit = pooledSlope(points)!;
  assert.equal(fit.slope, 2);
  assert.equal(fit.lives, 2);
  assert.equal(fit.points, 8);
  assert.equal(fit.meanY, 203);
  // Flat lives at different levels: no growth, whatever the levels.
  assert.equal(pooledSlope([0, 1, 2].flatMap((x) => [{ life: 0, x, y: 50 }, { life: 1, x, y: 80 }]))!.slope, 0);
  // A single sample per life, or no spread: no slope at all rather than a made-up one.
  assert.equal(pooledSlope([{ life: 0, x: 0, y: 1 }, { life: 1, x: 1, y: 2 }, { life: 2, x: 2, y: 3 }]), undefined);
  assert.equal(pooledSlope([{ life: 0, x: 1, y: 1 }, { life: 0, x: 1, y: 2 }, { life: 0, x: 1, y: 3 }]), undefined);
});

test('soak options: defaults are issue 24\'s; bad values are refused naming the flag', () => {
  assert.deepEqual(soakOptions({}), SOAK_DEFAULTS);
  assert.equal(SOAK_DEFAULTS.minutes >= 60 && SOAK_DEFAULTS.personas === 100, true);
  assert.deepEqual(soakOptions({ minutes: '8', personas: '20', killEvery: '0' }), { ...SOAK_DEFAULTS, minutes: 8, personas: 20, killEvery: 0 });
  assert.throws(() => soakOptions({ personas: '2.5' }), /--personas 2\.5: a whole number/);
  assert.throws(() => soakOptions({ minutes: '0' }), /--minutes 0: a number above 0/);
  assert.throws(() => soakOptions({ faultEvery: '1' }), /--fault-every 1: a whole number of 2 or more/);
  assert.throws(() => soakOptions({ killEvery: 'soon' }), /--kill-every soon: a number of 0 or more/);
});
