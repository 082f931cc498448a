/**
 * Globals Deno has that the sandbox does not provide: each is present and, when used,
 * throws RTC_ERR_UNSUPPORTED naming it (unsupported.ts). Constructors and functions throw
 * when called; namespace objects (`localStorage`, `Temporal`, `caches`) throw on the first
 * property a script reads. (Node's `process` and `Buffer` are real globals, as in Deno 2.9:
 * lazy-globals.ts loads them on first touch.)
 */
import { unsupportedError, unsupportedFunction } from './unsupported.ts';

const FUNCTIONS = [
  'WebSocket', 'Worker', 'BroadcastChannel', 'MessageChannel', 'MessagePort', 'EventSource', 'URLPattern',
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

export function installUnsupportedGlobals(): void {
  const define = (name: string, value: unknown): void => {
    if (Object.prototype.hasOwnProperty.call(globalThis, name)) return;
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  };
  for (const name of FUNCTIONS) define(name, unsupportedFunction(name));
  for (const name of NAMESPACES) define(name, unsupportedNamespace(name));
  define('global', globalThis);
}
