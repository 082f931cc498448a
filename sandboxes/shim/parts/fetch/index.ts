/**
 * `fetch` and the Fetch standard's classes (`Headers`, `Request`, `Response`) with the
 * File API (`Blob`, `File`, `FormData`). The host performs the request (sandboxes/deno/ops/
 * net.ts: `net` is checked for the URL and every redirect hop); the response body streams
 * back through `net.read`, so `response.body` is a real ReadableStream and a script that
 * stops reading (or aborts) stops the download.
 */
import { callAsync, callSync } from '../../host.ts';
import { base64ToBytes, bytesToBase64 } from '../../web/base64.ts';
import { defineGlobal } from '../../parts-loader.ts';
import { followSignal } from '../events/abort.ts';
import { ReadableStream } from '../streams.ts';
import { Blob, File } from './blob.ts';
import { FormData } from './form-data.ts';
import { FileReader } from './file-reader.ts';
import { Headers, headerList } from './headers.ts';
import { Request, requestBody, type RequestInit } from './request.ts';
import { Response, fetchedResponse } from './response.ts';
import { readAllBytes } from '../streams.ts';

export { Blob, File, FormData, Headers, Request, Response };

interface FetchAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  rid: number;
  url: string;
  redirected: boolean;
}

/** The response body as a stream pulling chunks from the host. */
function hostBody(rid: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  let open = true;
  const release = (): void => {
    if (!open) return;
    open = false;
    callSync('net.close', { rid });
  };
  let stopFollowing: () => void = () => undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await callAsync<string | null>('net.read', { rid });
      if (chunk === null) {
        open = false;
        stopFollowing();
        controller.close();
      } else controller.enqueue(base64ToBytes(chunk));
    },
    cancel() {
      stopFollowing();
      release();
    },
  });
  stopFollowing = followSignal(signal as never, () => {
    release();
    try {
      (stream as unknown as { _readableStreamController?: { error(e: unknown): void } })._readableStreamController?.error(signal.reason);
    } catch {
      // the stream had already ended
    }
  });
  return stream;
}

export async function fetch(input: string | { href: string } | Request, init?: RequestInit): Promise<Response> {
  if (arguments.length < 1) throw new TypeError("Failed to execute 'fetch' on 'Window': 1 argument required, but only 0 present");
  const request = new Request(input, init);
  const signal = request.signal;
  if (signal.aborted) throw signal.reason;
  const source = requestBody(request).take();
  const body = source ? (source.stream ? await readAllBytes(source.stream) : source.bytes) : null;
  const answer = callAsync<FetchAnswer>('net.fetch', {
    url: request.url,
    method: request.method,
    headers: headerList(request.headers),
    body: body ? bytesToBase64(body) : null,
    redirect: request.redirect,
  });
  // An abort before the response arrives rejects at once; a late answer's body is dropped.
  const aborted = new Promise<never>((_, reject) => followSignal(signal as never, () => reject(signal.reason)));
  aborted.catch(() => undefined);
  let meta: FetchAnswer;
  try {
    meta = await Promise.race([answer, aborted]);
  } catch (error) {
    answer.then((late) => callSync('net.close', { rid: late.rid }), () => undefined);
    throw error;
  }
  const noBody = meta.status === 204 || meta.status === 304 || meta.status === 101 || meta.status === 205 || request.method === 'HEAD';
  if (noBody) callSync('net.close', { rid: meta.rid });
  const stream = noBody ? null : hostBody(meta.rid, signal);
  return fetchedResponse(
    { status: meta.status, statusText: meta.statusText, headers: meta.headers },
    { type: 'basic', url: meta.url, redirected: meta.redirected },
    stream ? { bytes: null, stream } : null,
  );
}

type AbortSignal = import('../events/abort.ts').AbortSignal;

defineGlobal('fetch', fetch);
defineGlobal('Headers', Headers);
defineGlobal('Request', Request);
defineGlobal('Response', Response);
defineGlobal('Blob', Blob);
defineGlobal('File', File);
defineGlobal('FormData', FormData);
defineGlobal('FileReader', FileReader);
