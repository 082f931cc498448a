/**
 * `process.stdout`, `process.stderr` and `process.stdin` as Node streams (made on first use,
 * from the streams part): writes go to the run's own output through the runtime, counted
 * against the output cap like console output; stdin is empty, as a sandboxed run has none.
 */
import { callSync } from '../../host.ts';
import { requirePart } from '../../parts-loader.ts';
import { TextDecoder } from '../../web/text-encoding.ts';

interface StreamModule {
  Writable: new (options: Record<string, unknown>) => Record<string, unknown>;
  Readable: new (options: Record<string, unknown>) => Record<string, unknown>;
}

function streams(): StreamModule {
  return requirePart<{ modules: Record<string, StreamModule> }>('node-stream').modules.stream!;
}

function toText(chunk: unknown, encoding: string | undefined, decoder: TextDecoder): string {
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof Uint8Array) return decoder.decode(chunk, { stream: true });
  void encoding;
  return String(chunk);
}

function output(fd: 1 | 2): Record<string, unknown> {
  const { Writable } = streams();
  const decoder = new TextDecoder();
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: unknown, encoding: string, callback: (error?: Error | null) => void) {
      try {
        const text = toText(chunk, encoding, decoder);
        if (text.length > 0) callSync('io.write', { fd, text });
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  Object.assign(stream, { fd, isTTY: false, _type: 'pipe', _isStdio: true, columns: undefined, rows: undefined });
  Object.assign(stream, { getColorDepth: () => 1, hasColors: () => false, getWindowSize: () => [80, 24] });
  // the run's own output is never closed by the script
  stream.destroySoon = stream.destroy = function destroy(this: unknown) {
    return this;
  };
  return stream;
}

function input(): Record<string, unknown> {
  const { Readable } = streams();
  const stream = new Readable({
    read(this: { push(chunk: unknown): boolean }) {
      this.push(null);
    },
  });
  Object.assign(stream, { fd: 0, isTTY: false, isRaw: false, setRawMode: () => stream });
  return stream;
}

export function makeStdio(): { stdout(): Record<string, unknown>; stderr(): Record<string, unknown>; stdin(): Record<string, unknown> } {
  let stdout: Record<string, unknown> | undefined;
  let stderr: Record<string, unknown> | undefined;
  let stdin: Record<string, unknown> | undefined;
  return {
    stdout: () => (stdout ??= output(1)),
    stderr: () => (stderr ??= output(2)),
    stdin: () => (stdin ??= input()),
  };
}
