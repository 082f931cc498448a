// @attack: node:fs through symlinks planted in the granted folder that point out of it: a live
// @attack: link to the outside secret, a link to the outside folder, a chain of links, a relative
// @attack: link, a dangling link to a new outside file; read, write, open, stream, stat, realpath
// @attack: and copy through each. Under strictSymlinks (community-draft) none may be followed.
// @expect: contained
// @profile: community-draft
// @flags: --allow-read={work} --allow-write={work}
// @setup: link to-secret {outside}/secret.txt
// @setup: link dirlink {outside}
// @setup: link chain1 to-secret
// @setup: link relout ../outside/secret.txt
// @setup: link dangle {outside}/new.txt
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
for (const p of ['to-secret', 'dirlink/secret.txt', 'chain1', 'relout']) {
  await refused(`readFileSync ${p}`, () => fs.readFileSync(p, 'utf8'));
  await refused(`statSync ${p}`, () => fs.statSync(p).size);
  await refused(`realpathSync ${p}`, () => fs.realpathSync(p));
  await refused(`openSync ${p}`, () => { const fd = fs.openSync(p, 'r'); const b = Buffer.alloc(64); return fs.readSync(fd, b).toString(); });
  await refused(`promises.readFile ${p}`, () => fsp.readFile(p, 'utf8'));
  await refused(`read stream ${p}`, () => new Promise((resolve, reject) => { const s = fs.createReadStream(p); s.on('error', reject); s.on('data', (d) => resolve(String(d))); }));
  await refused(`copyFileSync ${p}`, () => fs.copyFileSync(p, 'stolen.txt'));
  await refused(`writeFileSync ${p}`, () => fs.writeFileSync(p, 'overwritten'));
  await refused(`appendFileSync ${p}`, () => fs.appendFileSync(p, 'appended'));
}
for (const p of ['dangle', 'dirlink/new.txt']) {
  await refused(`writeFileSync ${p}`, () => fs.writeFileSync(p, 'planted'));
  await refused(`openSync w ${p}`, () => fs.openSync(p, 'w'));
  await refused(`write stream ${p}`, () => new Promise((resolve, reject) => { const s = fs.createWriteStream(p); s.on('error', reject); s.on('open', resolve); }));
}
await refused('readdirSync dirlink', () => fs.readdirSync('dirlink'));
await refused('mkdirSync through dirlink', () => fs.mkdirSync('dirlink/sub', { recursive: true }));
await refused('rmSync through dirlink', () => fs.rmSync('dirlink/secret.txt'));
// the links themselves are the script's to look at and remove
if (!fs.lstatSync('to-secret').isSymbolicLink()) wrong('lstat of a planted link should work');
fs.unlinkSync('dangle');
if (!bad) console.log('CONTAINED');
