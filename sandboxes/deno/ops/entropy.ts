/** Randomness and the monotonic clock: no permission, but every read passes the broker so a replay can answer it. */
import { defineOp, HOST_SOURCES } from '../../../kernel/broker/op.ts';
import { int, record } from '../../../kernel/broker/args.ts';

export const randomBytesOp = defineOp({
  name: 'random.bytes',
  mode: 'sync',
  parse: (raw) => ({ length: int(record(raw), 'length', 0, 65536) }),
  needs: () => [],
  run: (a, ctx) => (ctx.sources ?? HOST_SOURCES).randomBytes(a.length).toString('base64'),
});

export const randomSeed = defineOp({
  name: 'random.seed',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: (_a, ctx) => {
    // copied: a Buffer may sit at an unaligned offset of a shared pool
    const bytes = Uint8Array.from((ctx.sources ?? HOST_SOURCES).randomBytes(16));
    return Array.from(new Uint32Array(bytes.buffer));
  },
});

export const clockNow = defineOp({
  name: 'clock.now',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: (_a, ctx) => (ctx.sources ?? HOST_SOURCES).now(),
});

export const clockMonotonic = defineOp({
  name: 'clock.monotonic',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: (_a, ctx) => (ctx.sources ?? HOST_SOURCES).monotonic(),
});

/** The wall time the monotonic clock counts from: `performance.timeOrigin`. */
export const clockOrigin = defineOp({
  name: 'clock.origin',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  run: (_a, ctx) => {
    const sources = ctx.sources ?? HOST_SOURCES;
    return sources.now() - sources.monotonic();
  },
});
