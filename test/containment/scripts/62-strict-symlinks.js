// @attack: community-draft (strictSymlinks): ships links out of its granted folder and uses
// @attack: every op through them: a dangling link to a new file outside (write, append,
// @attack: createNew, mkdir), a live link to an outside file (read, write, stat, realPath), a
// @attack: folder link (lstat of an entry beneath it: size, inode, mtime; readDir; write and
// @attack: remove beneath it), chains of links, a link to a missing outside folder. Nothing
// @attack: outside may be read, learned, created, changed or removed.
// @expect: contained
// @profile: community-draft
// @flags: --allow-read={work} --allow-write={work}
// @setup: link dangle {outside}/new.txt
// @setup: link dangle-deep {outside}/no/such/x
// @setup: link to-secret {outside}/secret.txt
// @setup: link dirlink {outside}
// @setup: link chain1 chain2
// @setup: link chain2 to-secret
// @setup: link relout ../outside/secret.txt
// @setup: link missingdir {outside}/missing
// @setup: link inside-link real/file.txt
// @setup: file real/file.txt inside
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${JSON.stringify(v)?.slice(0, 120)}`);
  } catch (e) {
    // NotCapable, whether or not the outside path exists: no existence oracle
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const secretish = ['to-secret', 'chain1', 'chain2', 'relout', 'dirlink/secret.txt', 'dirlink/./secret.txt'];
for (const p of secretish) {
  await refused(`read ${p}`, () => Deno.readTextFile(p));
  await refused(`readFile ${p}`, async () => (await Deno.readFile(p)).length);
  await refused(`stat ${p}`, async () => { const s = await Deno.stat(p); return [s.size, s.ino]; });
  // lstat of a link planted in the folder describes that link (it is in the grant); of anything beneath a folder link, nothing
  if (p.includes('/')) await refused(`lstat ${p}`, async () => { const s = await Deno.lstat(p); return [s.size, s.ino, s.mtime]; });
  else if (!(await Deno.lstat(p)).isSymlink) wrong(`lstat ${p} should describe the link itself`);
  await refused(`realPath ${p}`, () => Deno.realPath(p));
  await refused(`write ${p}`, () => Deno.writeTextFile(p, 'changed'));
  await refused(`append ${p}`, () => Deno.writeTextFile(p, 'changed', { append: true }));
}
for (const p of ['dangle', 'dangle-deep', 'missingdir/x', 'dirlink/new.txt', 'dirlink/sub/new.txt']) {
  await refused(`write ${p}`, () => Deno.writeTextFile(p, 'created'));
  await refused(`createNew ${p}`, () => Deno.writeTextFile(p, 'created', { createNew: true }));
  await refused(`stat ${p}`, () => Deno.stat(p));
  await refused(`realPath ${p}`, () => Deno.realPath(p));
}
for (const p of ['dirlink/newdir', 'dangle', 'missingdir', 'dirlink/a/b']) await refused(`mkdir ${p}`, () => Deno.mkdir(p, { recursive: p.includes('/a/') }));
await refused('readDir dirlink', async () => { const a = []; for await (const e of Deno.readDir('dirlink')) a.push(e.name); return a; });
await refused('realPath dirlink', () => Deno.realPath('dirlink'));
await refused('remove dirlink/secret.txt', () => Deno.remove('dirlink/secret.txt'));
// inside the grant, links work
if ((await Deno.readTextFile('inside-link')) !== 'inside') wrong('a link inside the grant should read');
if (!(await Deno.lstat('dangle')).isSymlink) wrong('lstat of a planted link itself should work');
await Deno.remove('dangle');
// removing a folder link removes the link (in the grant), never what it points at: the harness checks the outside folder
await Deno.remove('dirlink/', { recursive: true });
if (!bad) console.log('CONTAINED');
