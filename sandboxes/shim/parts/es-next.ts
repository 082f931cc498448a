/**
 * Built-ins newer than Node 20's V8 (11.3) that Deno's V8 has, from core-js (the standard
 * library polyfill). Only these modules: core-js would otherwise also add proposals Deno
 * does not ship (Iterator.zip, Iterator.prototype.chunks...), which a script must not see.
 * Loaded on first touch of any of their names (lazy-globals.ts).
 */
declare const require: (id: string) => unknown;

require('core-js/modules/es.promise.with-resolvers.js');
require('core-js/modules/es.promise.try.js');
require('core-js/modules/es.object.group-by.js');
require('core-js/modules/es.map.group-by.js');
require('core-js/modules/es.array.from-async.js');
require('core-js/modules/es.array-buffer.detached.js');
require('core-js/modules/es.array-buffer.transfer.js');
require('core-js/modules/es.array-buffer.transfer-to-fixed-length.js');
require('core-js/modules/es.set.union.v2.js');
require('core-js/modules/es.set.intersection.v2.js');
require('core-js/modules/es.set.difference.v2.js');
require('core-js/modules/es.set.symmetric-difference.v2.js');
require('core-js/modules/es.set.is-subset-of.v2.js');
require('core-js/modules/es.set.is-superset-of.v2.js');
require('core-js/modules/es.set.is-disjoint-from.v2.js');
require('core-js/modules/es.iterator.constructor.js');
require('core-js/modules/es.iterator.concat.js');
require('core-js/modules/es.iterator.dispose.js');
require('core-js/modules/es.iterator.drop.js');
require('core-js/modules/es.iterator.every.js');
require('core-js/modules/es.iterator.filter.js');
require('core-js/modules/es.iterator.find.js');
require('core-js/modules/es.iterator.flat-map.js');
require('core-js/modules/es.iterator.for-each.js');
require('core-js/modules/es.iterator.from.js');
require('core-js/modules/es.iterator.map.js');
require('core-js/modules/es.iterator.reduce.js');
require('core-js/modules/es.iterator.some.js');
require('core-js/modules/es.iterator.take.js');
require('core-js/modules/es.iterator.to-array.js');
require('core-js/modules/es.regexp.escape.js');
require('core-js/modules/es.math.sum-precise.js');
require('core-js/modules/es.math.f16round.js');
require('core-js/modules/es.data-view.get-float16.js');
require('core-js/modules/es.data-view.set-float16.js');
require('core-js/modules/es.error.is-error.js');
require('core-js/modules/es.uint8-array.from-base64.js');
require('core-js/modules/es.uint8-array.from-hex.js');
require('core-js/modules/es.uint8-array.set-from-base64.js');
require('core-js/modules/es.uint8-array.set-from-hex.js');
require('core-js/modules/es.uint8-array.to-base64.js');
require('core-js/modules/es.uint8-array.to-hex.js');
require('core-js/modules/es.symbol.dispose.js');
require('core-js/modules/es.symbol.async-dispose.js');
require('core-js/modules/es.suppressed-error.constructor.js');
require('core-js/modules/es.disposable-stack.constructor.js');
require('core-js/modules/es.async-disposable-stack.constructor.js');
require('core-js/modules/es.async-iterator.async-dispose.js');
require('core-js/modules/es.json.raw-json.js');
// JSON.stringify learns raw JSON (the shim's own host calls keep the native one: host.ts)
require('core-js/modules/es.json.stringify.js');
require('core-js/modules/es.json.is-raw-json.js');
require('core-js/modules/es.map.get-or-insert.js');
require('core-js/modules/es.map.get-or-insert-computed.js');
require('core-js/modules/es.weak-map.get-or-insert.js');
require('core-js/modules/es.weak-map.get-or-insert-computed.js');
