import tar from 'tar-stream';
import fs from 'node:fs';
import { readArchiveMembers } from '/work/wt-harden-sql/features/history/archive-store.ts';
const p = tar.pack();
const chunks: Buffer[] = [];
p.on('data', (c: unknown) => chunks.push(c as Buffer));
const ended = new Promise<void>((r) => p.on('end', () => r()));
p.entry({ name: 'ada/a', size: 1 }, Buffer.from('x'));
p.entry({ name: '../../escape.txt', size: 1 }, Buffer.from('x'));
p.finalize();
await ended;
fs.writeFileSync('/tmp/hs/a.tar', Buffer.concat(chunks));
try { console.log(await readArchiveMembers('tarball', '/tmp/hs/a.tar', [{ name: 'ada/a', maxBytes: 10 }])); } catch (e) { console.log('ERR', (e as Error).message); }
