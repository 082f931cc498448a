/** Randomness and the monotonic clock: no permission, but every read passes the broker so a replay can answer it. */
import { randomBytes } from 'node:crypto';
import { defineOp } from '../op.ts';
import { int, record } from './args.ts';

export const randomBytesOp = defineOp({
  name: 'random.bytes',
  mode: 'sync',
  parse: (raw) => ({ length: int(record(raw), 'length', 0, 65536) }),
  needs: () => [],
  run: (a) => randomBytes(a.length).toString('base64'),
});

export const randomSeed = defineOp({
  name: 'random.seed',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: () => Array.from(new Uint32Array(randomBytes(16).buffer)),
});

export const clockNow = defineOp({
  name: 'clock.now',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: () => Date.now(),
});

const origin = performance.now();

export const clockMonotonic = defineOp({
  name: 'clock.monotonic',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: () => performance.now() - origin,
});
