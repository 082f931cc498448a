// @attack: node:fs reaching past its grant by path: `..` out of the granted folder, absolute
// @attack: paths, a file: URL, a Buffer path, the callback, promise, fd and stream forms, and
// @attack: writes, renames, copies and removals that land outside. Every one must be Deno's
// @attack: NotCapable (whether or not the target exists: no existence oracle) and the outside
// @attack: folder must stay exactly as it was.
// @expect: contained
// @tier: trusted
// @flags: --allow-read={work} --allow-write={work}
// @setup: file inside.txt inside
import fs from 'node:fs';
import fsp from 'node:fs/promises';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${JSON.stringify(v)?.slice(0, 120)}`);
  } catch (e) {
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const work = Deno.args[0];
const outside = Deno.args[1];
const targets = ['../outside/secret.txt', `${work}/../outside/secret.txt`, `${outside}/secret.txt`, `${outside}/no-such-file`, `${work}/./../outside/./secret.txt`];
for (const p of targets) {
  await refused(`readFileSync ${p}`, () => fs.readFileSync(p, 'utf8'));
  await refused(`readFileSync buffer path ${p}`, () => fs.readFileSync(Buffer.from(p)));
  await refused(`readFileSync url ${p}`, () => fs.readFileSync(new URL(`file://${p.startsWith('/') ? '' : `${work}/`}${p}`)));
  await refused(`existsSync ${p}`, () => fs.existsSync(p));
  await refused(`statSync ${p}`, () => fs.statSync(p).size);
  await refused(`openSync r ${p}`, () => fs.openSync(p, 'r'));
  await refused(`openSync a ${p}`, () => fs.openSync(p, 'a'));
  await refused(`promises.readFile ${p}`, () => fsp.readFile(p));
  await refused(`promises.open ${p}`, () => fsp.open(p));
  await refused(`callback readFile ${p}`, () => new Promise((resolve, reject) => fs.readFile(p, (err, data) => (err ? reject(err) : resolve(String(data))))));
  await refused(`read stream ${p}`, () => new Promise((resolve, reject) => { const s = fs.createReadStream(p); s.on('error', reject); s.on('data', (d) => resolve(String(d))); }));
  await refused(`writeFileSync ${p}`, () => fs.writeFileSync(p, 'x'));
  await refused(`appendFileSync ${p}`, () => fs.appendFileSync(p, 'x'));
  await refused(`write stream ${p}`, () => new Promise((resolve, reject) => { const s = fs.createWriteStream(p); s.on('error', reject); s.on('open', resolve); }));
  await refused(`truncateSync ${p}`, () => fs.truncateSync(p, 0));
  await refused(`unlinkSync ${p}`, () => fs.unlinkSync(p));
  await refused(`rmSync ${p}`, () => fs.rmSync(p, { force: true }));
  await refused(`chmodSync ${p}`, () => fs.chmodSync(p, 0o777));
  await refused(`utimesSync ${p}`, () => fs.utimesSync(p, 1, 1));
}
await refused('readdirSync outside', () => fs.readdirSync('../outside'));
await refused('opendirSync outside', () => fs.opendirSync('../outside'));
await refused('realpathSync outside', () => fs.realpathSync('../outside/secret.txt'));
await refused('copyFileSync out', () => fs.copyFileSync('inside.txt', '../outside/copied.txt'));
await refused('copyFileSync in', () => fs.copyFileSync('../outside/secret.txt', 'stolen.txt'));
await refused('cpSync in', () => fs.cpSync('../outside', 'stolen-dir', { recursive: true }));
await refused('renameSync out', () => fs.renameSync('inside.txt', '../outside/moved.txt'));
await refused('renameSync in', () => fs.renameSync('../outside/secret.txt', 'moved.txt'));
await refused('linkSync in', () => fs.linkSync('../outside/secret.txt', 'hard.txt'));
await refused('mkdirSync outside', () => fs.mkdirSync('../outside/new', { recursive: true }));
await refused('mkdtempSync outside', () => fs.mkdtempSync('../outside/t-'));
await refused('symlinkSync (needs unscoped read and write)', () => fs.symlinkSync('../outside/secret.txt', 'ln'));
await refused('accessSync outside', () => fs.accessSync('../outside/secret.txt'));
// inside the grant everything works
if (fs.readFileSync('inside.txt', 'utf8') !== 'inside') wrong('inside read');
fs.writeFileSync('inside2.txt', 'ok');
if (fs.readFileSync('inside2.txt', 'utf8') !== 'ok') wrong('inside write');
if (!bad) console.log('CONTAINED');
