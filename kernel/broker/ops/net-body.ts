/**
 * Streaming fetch bodies: a response body stays on the host as a resource (resources.ts)
 * and the script pulls it chunk by chunk (`net.read`), or drops it (`net.close`). Each
 * chunk is an answer the tape records, so a replayed script reads the same bytes. The
 * total a body may deliver is capped (the run's transfer cap), because a recording keeps
 * every byte the script was given.
 */
import type { Readable } from 'node:stream';
import { DenoOpError } from '../deno-error.ts';
import { defineOp, type BrokerContext } from '../op.ts';
import { resourcesOf, type Resource } from '../resources.ts';
import { record } from './args.ts';

interface BodyResource extends Resource {
  kind: 'fetchBody';
  next(): Promise<Buffer | null>;
}

/** Chunks handed out per read, at most (big network chunks are split). */
const CHUNK = 64 * 1024;

export function registerBody(ctx: BrokerContext, body: Readable & AsyncIterable<Buffer>): number {
  // Destroying a body that is still arriving emits an error: it must never reach the kernel's top level.
  body.on('error', () => undefined);
  const iterator = body[Symbol.asyncIterator]();
  let delivered = 0;
  let rest: Buffer | null = null;
  const resource: BodyResource = {
    kind: 'fetchBody',
    async next() {
      let chunk = rest;
      rest = null;
      if (!chunk) {
        const step = await iterator.next();
        if (step.done) return null;
        chunk = Buffer.isBuffer(step.value) ? step.value : Buffer.from(step.value);
      }
      if (chunk.length > CHUNK) {
        rest = chunk.subarray(CHUNK);
        chunk = chunk.subarray(0, CHUNK);
      }
      delivered += chunk.length;
      if (delivered > ctx.maxResponseBytes) throw new DenoOpError('InvalidData', `response body is larger than the sandbox cap of ${ctx.maxResponseBytes} bytes`);
      return chunk;
    },
    close() {
      body.destroy();
    },
  };
  return resourcesOf(ctx).add(resource);
}

const ridArg = (raw: unknown) => ({ rid: record(raw).rid });

export const netRead = defineOp({
  name: 'net.read',
  mode: 'async',
  parse: ridArg,
  needs: () => [],
  async run({ rid }, ctx) {
    const table = resourcesOf(ctx);
    const body = table.get<BodyResource>(rid, 'fetchBody');
    let chunk: Buffer | null;
    try {
      chunk = await body.next();
    } catch (error) {
      table.close(rid);
      if (error instanceof DenoOpError) throw error;
      throw new DenoOpError('TypeError', `error reading a response body from connection: ${(error as Error).message}`);
    }
    if (chunk === null) table.close(rid);
    return chunk === null ? null : chunk.toString('base64');
  },
});

export const netClose = defineOp({
  name: 'net.close',
  mode: 'sync',
  parse: ridArg,
  needs: () => [],
  run({ rid }, ctx) {
    const table = resourcesOf(ctx);
    if (typeof rid === 'number' && table.has(rid)) table.close(rid);
    return null;
  },
});
