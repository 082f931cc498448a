/**
 * Globals Deno has that the sandbox does not provide: each is present and, when used,
 * throws RTC_ERR_UNSUPPORTED naming it (unsupported.ts). Constructors and functions throw
 * when called; namespace objects (`localStorage`, `Temporal`, `caches`) throw on the first
 * property a script reads. (Node's `process` and `Buffer` are real globals, as in Deno 2.9:
 * lazy-globals.ts loads them on first touch.)
 */
import { gatedFunction, unsupportedError, unsupportedFunction, type ShimAttempt } from './unsupported.ts';

const FUNCTIONS = [
  'BroadcastChannel', 'MessageChannel', 'MessagePort', 'URLPattern',
  'Storage', 'Cache', 'CacheStorage', 'Lock', 'LockManager', 'ImageData', 'ImageBitmap', 'OffscreenCanvas',
  'ImageBitmapRenderingContext', 'createImageBitmap', 'alert', 'confirm', 'prompt', 'close',
  // geometry and WebGPU, which Deno has and the sandbox does not
  'DOMMatrix', 'DOMMatrixReadOnly', 'DOMPoint', 'DOMPointReadOnly', 'DOMQuad', 'DOMRect', 'DOMRectReadOnly',
  'GPU', 'GPUAdapter', 'GPUAdapterInfo', 'GPUBindGroup', 'GPUBindGroupLayout', 'GPUBuffer', 'GPUBufferUsage', 'GPUCanvasContext',
  'GPUColorWrite', 'GPUCommandBuffer', 'GPUCommandEncoder', 'GPUCompilationInfo', 'GPUCompilationMessage', 'GPUComputePassEncoder',
  'GPUComputePipeline', 'GPUDevice', 'GPUDeviceLostInfo', 'GPUError', 'GPUInternalError', 'GPUMapMode', 'GPUOutOfMemoryError',
  'GPUPipelineError', 'GPUPipelineLayout', 'GPUQuerySet', 'GPUQueue', 'GPURenderBundle', 'GPURenderBundleEncoder',
  'GPURenderPassEncoder', 'GPURenderPipeline', 'GPUSampler', 'GPUShaderModule', 'GPUShaderStage', 'GPUSupportedFeatures',
  'GPUSupportedLimits', 'GPUTexture', 'GPUTextureUsage', 'GPUTextureView', 'GPUUncapturedErrorEvent', 'GPUValidationError',
  // Float16Array is newer than this V8 and core-js has no polyfill of it
  'Float16Array',
];

const NAMESPACES = ['localStorage', 'sessionStorage', 'caches', 'Temporal'];

function unsupportedNamespace(name: string): object {
  return new Proxy(Object.create(null) as object, {
    get(_target, key) {
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw unsupportedError(`${name}.${key}`);
    },
    set(_target, key) {
      throw unsupportedError(`${name}.${String(key)}`);
    },
  });
}

/** What opening `url` reaches: `net` of its host:port (the scheme's default port), or `read` of a file: URL's path. */
function urlAttempt(raw: unknown, module = false): ShimAttempt[] {
  const URLClass = (globalThis as unknown as { URL: new (u: string) => { protocol: string; hostname: string; port: string; pathname: string } }).URL;
  const text = String(raw);
  let url;
  try {
    url = new URLClass(text);
  } catch {
    // A relative module specifier: a file beside the script.
    return module ? [{ kind: 'read', value: text }] : [{ kind: 'net' }];
  }
  if (url.protocol === 'file:') return [{ kind: 'read', value: decodeURIComponent(url.pathname) }];
  if (url.protocol === 'data:' || url.protocol === 'blob:') return [];
  const port = url.port !== '' ? url.port : url.protocol === 'wss:' || url.protocol === 'https:' ? '443' : '80';
  // A remote module is Deno's `import` permission; a connection is `net`.
  return [{ kind: module ? 'import' : 'net', value: `${url.hostname}:${port}` }];
}

/** Globals that reach the network or load code, gated in Deno: each use is the attempt of that kind. */
// (WebSocketStream is not here: Deno 2.9 has it only with --unstable-net, so a plain script has no such global)
const GATED: Record<string, (...args: unknown[]) => never> = {
  WebSocket: gatedFunction('WebSocket', 'net', (url) => urlAttempt(url)),
  EventSource: gatedFunction('EventSource', 'net', (url) => urlAttempt(url)),
  Worker: gatedFunction('Worker', 'read', (specifier) => urlAttempt(specifier, true)),
};

export function installUnsupportedGlobals(): void {
  const define = (name: string, value: unknown): void => {
    if (Object.prototype.hasOwnProperty.call(globalThis, name)) return;
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  };
  for (const name of FUNCTIONS) define(name, unsupportedFunction(name));
  for (const [name, stub] of Object.entries(GATED)) define(name, stub);
  for (const name of NAMESPACES) define(name, unsupportedNamespace(name));
  define('global', globalThis);
}
