// @attack: default profile (links are followed as under Deno): writes through dangling links
// @attack: planted in its granted folder, to a new file outside (direct, through a chain, to
// @attack: a missing folder outside, relative), with every write option. Deno answers
// @attack: NotFound and creates nothing; nothing may appear outside.
// @expect: contained
// @tier: trusted
// @flags: --allow-read={work} --allow-write={work}
// @setup: link dangle {outside}/new.txt
// @setup: link chain dangle
// @setup: link rel ../outside/rel.txt
// @setup: link deep {outside}/no/such/dir/x
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function noCreate(label, f, classes = ['NotFound']) {
  try {
    await f();
    bad = true;
    console.log(`${MARK} via ${label}: it wrote`);
  } catch (e) {
    if (!classes.includes(e?.name)) wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
for (const p of ['dangle', 'chain', 'rel', 'deep', './dangle', `${Deno.cwd()}/chain`]) {
  await noCreate(`writeTextFile ${p}`, () => Deno.writeTextFile(p, 'x'));
  await noCreate(`append ${p}`, () => Deno.writeTextFile(p, 'x', { append: true }));
  await noCreate(`writeFile ${p}`, () => Deno.writeFile(p, new Uint8Array([1, 2])));
  await noCreate(`mode ${p}`, () => Deno.writeTextFile(p, 'x', { mode: 0o600 }));
  await noCreate(`createNew ${p}`, () => Deno.writeTextFile(p, 'x', { createNew: true }), ['AlreadyExists']);
  await noCreate(`create:false ${p}`, () => Deno.writeTextFile(p, 'x', { create: false }));
}
if (!bad) console.log('CONTAINED');
