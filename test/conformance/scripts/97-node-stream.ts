// flags: (none)
// args: (none)
// node:stream and stream/promises: Readable, Writable, Transform, pipeline, finished, object mode.
import { Duplex, PassThrough, Readable, Transform, Writable, finished, pipeline } from 'node:stream';
import { pipeline as pipelinePromise } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
console.log(Readable.name, Writable.name, Transform.name, Duplex.name, typeof Readable.from);
const chunks: string[] = [];
await pipelinePromise(
  Readable.from(['a', 'b', 'c']),
  new Transform({
    transform(chunk, _enc, cb) {
      cb(null, String(chunk).toUpperCase());
    },
  }),
  new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }),
);
console.log('pipeline', chunks);
const objects: unknown[] = [];
for await (const item of Readable.from([{ n: 1 }, { n: 2 }])) objects.push(item);
console.log('object mode', JSON.stringify(objects));
const pass = new PassThrough();
let passed = '';
pass.on('data', (d) => (passed += d));
pass.write('x');
pass.end('y');
await new Promise((r) => finished(pass, r));
console.log('passthrough', passed);
await new Promise<void>((resolve) => {
  pipeline(
    Readable.from(['1']),
    new Transform({ transform(_c, _e, cb) { cb(new Error('transform failed')); } }),
    new Writable({ write(_c, _e, cb) { cb(); } }),
    (err) => {
      console.log('pipeline error', err?.message);
      resolve();
    },
  );
});
const r = new Readable({ read() {} });
r.push('p1');
r.push('p2');
r.push(null);
r.setEncoding('utf8');
let got = '';
r.on('data', (d) => (got += d));
await new Promise((resolve) => r.on('end', resolve));
console.log('manual readable', got, r.readableEnded, r.destroyed);
const w = new Writable({ highWaterMark: 2, write(_c, _e, cb) { setTimeout(cb, 1); } });
console.log('backpressure', w.write('abc'), w.writableLength > 0);
await new Promise((resolve) => w.end(resolve));
const d = new StringDecoder('utf8');
console.log('decoder', JSON.stringify(d.write(Buffer.from([0xe2, 0x82])) + d.end(Buffer.from([0xac]))));
const errored = new Readable({ read() { this.destroy(new Error('read failed')); } });
errored.on('error', (e) => console.log('error event', e.message));
errored.resume();
await new Promise((resolve) => errored.on('close', resolve));
console.log('closed', errored.destroyed);
