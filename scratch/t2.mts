import tar from 'tar-stream';
import fs from 'node:fs';
const extract = tar.extract();
extract.on('entry', (header, stream, next) => {
  console.log('entry', header.name);
  if (header.name.startsWith('..')) { extract.destroy(new Error('boom')); return; }
  stream.resume(); stream.on('end', next);
});
extract.on('error', (e) => console.log('error event', e.message));
extract.on('close', () => console.log('close'));
extract.on('finish', () => console.log('finish'));
fs.createReadStream('/tmp/hs/a.tar').pipe(extract);
setTimeout(() => console.log('timeout'), 2000);
