/** `util.types`: checks by the engine's own tags and brand methods, as far as script code can make them. */
const tag = (v: unknown): string => Object.prototype.toString.call(v);
const typedArrayTag = (v: unknown): string | undefined => {
  try {
    return Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype) as object, Symbol.toStringTag)!.get!.call(v) as string | undefined;
  } catch {
    return undefined;
  }
};

function brand(method: Function, value: unknown): boolean {
  try {
    method.call(value);
    return true;
  } catch {
    return false;
  }
}

const isTypedArrayOf = (name: string) => (v: unknown) => typedArrayTag(v) === name;

export const types = {
  isPromise: (v: unknown) => v instanceof Promise || tag(v) === '[object Promise]',
  isDate: (v: unknown) => v instanceof Date || (typeof v === 'object' && v !== null && brand(Date.prototype.getTime, v)),
  isRegExp: (v: unknown) => v instanceof RegExp || tag(v) === '[object RegExp]',
  isMap: (v: unknown) => typeof v === 'object' && v !== null && brand(Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!, v),
  isSet: (v: unknown) => typeof v === 'object' && v !== null && brand(Object.getOwnPropertyDescriptor(Set.prototype, 'size')!.get!, v),
  isWeakMap: (v: unknown) => typeof v === 'object' && v !== null && brand(WeakMap.prototype.has, v),
  isWeakSet: (v: unknown) => typeof v === 'object' && v !== null && brand(WeakSet.prototype.has, v),
  isMapIterator: (v: unknown) => tag(v) === '[object Map Iterator]',
  isSetIterator: (v: unknown) => tag(v) === '[object Set Iterator]',
  isTypedArray: (v: unknown) => typedArrayTag(v) !== undefined,
  isUint8Array: isTypedArrayOf('Uint8Array'),
  isUint8ClampedArray: isTypedArrayOf('Uint8ClampedArray'),
  isUint16Array: isTypedArrayOf('Uint16Array'),
  isUint32Array: isTypedArrayOf('Uint32Array'),
  isInt8Array: isTypedArrayOf('Int8Array'),
  isInt16Array: isTypedArrayOf('Int16Array'),
  isInt32Array: isTypedArrayOf('Int32Array'),
  isFloat16Array: isTypedArrayOf('Float16Array'),
  isFloat32Array: isTypedArrayOf('Float32Array'),
  isFloat64Array: isTypedArrayOf('Float64Array'),
  isBigInt64Array: isTypedArrayOf('BigInt64Array'),
  isBigUint64Array: isTypedArrayOf('BigUint64Array'),
  isArrayBuffer: (v: unknown) => typeof v === 'object' && v !== null && brand(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!, v),
  isSharedArrayBuffer: (v: unknown) => typeof SharedArrayBuffer === 'function' && typeof v === 'object' && v !== null && brand(Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength')!.get!, v),
  isAnyArrayBuffer: (v: unknown) => types.isArrayBuffer(v) || types.isSharedArrayBuffer(v),
  isArrayBufferView: (v: unknown) => ArrayBuffer.isView(v),
  isDataView: (v: unknown) => tag(v) === '[object DataView]',
  isNativeError: (v: unknown) => v instanceof Error || tag(v) === '[object Error]',
  isAsyncFunction: (v: unknown) => typeof v === 'function' && /^\[object Async(Generator)?Function\]$/.test(tag(v)),
  isGeneratorFunction: (v: unknown) => typeof v === 'function' && /^\[object (Async)?GeneratorFunction\]$/.test(tag(v)),
  isGeneratorObject: (v: unknown) => tag(v) === '[object Generator]' || tag(v) === '[object AsyncGenerator]',
  isArgumentsObject: (v: unknown) => tag(v) === '[object Arguments]',
  isBoxedPrimitive: (v: unknown) => types.isNumberObject(v) || types.isStringObject(v) || types.isBooleanObject(v) || types.isBigIntObject(v) || types.isSymbolObject(v),
  isNumberObject: (v: unknown) => typeof v === 'object' && v !== null && brand(Number.prototype.valueOf, v),
  isStringObject: (v: unknown) => typeof v === 'object' && v !== null && brand(String.prototype.valueOf, v),
  isBooleanObject: (v: unknown) => typeof v === 'object' && v !== null && brand(Boolean.prototype.valueOf, v),
  isBigIntObject: (v: unknown) => typeof v === 'object' && v !== null && brand(BigInt.prototype.valueOf, v),
  isSymbolObject: (v: unknown) => typeof v === 'object' && v !== null && brand(Symbol.prototype.valueOf, v),
  isModuleNamespaceObject: (v: unknown) => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === null && tag(v) === '[object Module]',
  // A proxy cannot be told from its target by script code; Node asks V8.
  isProxy: (_v: unknown) => false,
  isExternal: (_v: unknown) => false,
  isKeyObject: (_v: unknown) => false,
  isCryptoKey: (v: unknown) => tag(v) === '[object CryptoKey]',
  isWeakRef: (v: unknown) => typeof WeakRef === 'function' && v instanceof WeakRef,
};
