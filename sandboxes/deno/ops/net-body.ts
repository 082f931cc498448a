/**
 * Streaming fetch bodies: a response body stays on the host as a resource (kernel/broker/resources.ts)
 * and the script pulls it chunk by chunk (`net.read`) as it arrives, or drops it
 * (`net.close`). Each chunk is an answer the tape records, so a replayed script reads the
 * same bytes. The total a body may deliver is capped (the run's transfer cap), because a
 * recording keeps every byte the script was given.
 *
 * The body keeps its fetch's place in the run's scope (kernel/broker/run-scope.ts) until the network has
 * sent all of it: the kernel reads it as it comes (so a body the script has not read yet
 * still ends, and `await Promise.all(urls.map(fetch))` cannot wait for ever on its own
 * bodies), each chunk counted against the run's bytes in flight until it is delivered. So a
 * run still has at most `maxOps` connections at once and its unread bytes capped together,
 * as with buffered bodies, while a slow or endless body (server-sent events) is read chunk
 * by chunk. The run's end aborts the fetch's signal: the body ends with Interrupted.
 */
import type { Readable } from 'node:stream';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { defineOp, type BrokerContext } from '../../../kernel/broker/op.ts';
import { resourcesOf, type Resource } from '../../../kernel/broker/resources.ts';
import type { KeptTicket } from '../../../kernel/broker/run-scope.ts';
import { record } from '../../../kernel/broker/args.ts';

interface BodyResource extends Resource {
  kind: 'fetchBody';
  /** the next chunk, null at the end; throws the body's error */
  next(): Promise<Buffer | null>;
}

/** Chunks handed out per read, at most (big network chunks are split). */
const CHUNK = 64 * 1024;

/** Deno's words for a body that failed while it was read. */
function bodyError(error: unknown, url: URL, signal: AbortSignal): DenoOpError {
  if (error instanceof DenoOpError) return error;
  if (signal.aborted) return signal.reason instanceof DenoOpError ? signal.reason : new DenoOpError('Interrupted', 'the run ended while this body was read');
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'UND_ERR_BODY_TIMEOUT') return new DenoOpError('TypeError', `error reading a response body from connection (${url.href}): the server sent nothing for too long (${(error as Error).message})`);
  return new DenoOpError('TypeError', `error reading a response body from connection: ${(error as Error).message}`);
}

export function registerBody(ctx: BrokerContext, body: Readable & AsyncIterable<Buffer>, url: URL, ticket: KeptTicket): number {
  // Destroying a body that is still arriving emits an error: it must never reach the kernel's top level.
  body.on('error', () => undefined);
  const queue: Buffer[] = [];
  let ended = false;
  let failure: DenoOpError | undefined;
  const waiting: (() => void)[] = [];
  let received = 0;
  const signal = ticket.signal;

  const settle = (): void => {
    for (const w of waiting.splice(0)) w();
  };
  const pump = async (): Promise<void> => {
    try {
      for await (const raw of body) {
        const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
        received += chunk.length;
        if (received > ctx.maxResponseBytes) throw new DenoOpError('InvalidData', `response body is larger than the sandbox cap of ${ctx.maxResponseBytes} bytes`);
        ticket.hold(chunk.length);
        for (let at = 0; at < chunk.length; at += CHUNK) queue.push(chunk.subarray(at, at + CHUNK));
        settle();
      }
    } catch (error) {
      failure = bodyError(error, url, signal);
      body.destroy();
      // what was not delivered is dropped with the error
      queue.length = 0;
      ticket.done();
    } finally {
      ended = true;
      // all of it arrived (or it failed): the connection is no longer the run's to count
      ticket.freeSlot();
      settle();
    }
  };
  void pump();

  const resource: BodyResource = {
    kind: 'fetchBody',
    async next() {
      // once the run ended, nothing more is delivered (even what had arrived)
      if (signal.aborted && !failure) failure = bodyError(signal.reason, url, signal);
      while (queue.length === 0 && !ended && !failure) await new Promise<void>((resolve) => waiting.push(resolve));
      if (failure) throw failure;
      const chunk = queue.shift();
      if (!chunk) {
        ticket.done();
        return null;
      }
      ticket.release(chunk.length);
      return chunk;
    },
    close() {
      body.destroy();
      queue.length = 0;
      ticket.done();
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
  // Not scoped: the body holds its fetch's slot and counts its own bytes (see above).
  async run({ rid }, ctx) {
    const table = resourcesOf(ctx);
    const body = table.get<BodyResource>(rid, 'fetchBody');
    let chunk: Buffer | null;
    try {
      chunk = await body.next();
    } catch (error) {
      if (table.has(rid as number)) table.close(rid);
      throw error;
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
