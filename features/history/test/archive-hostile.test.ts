/**
 * `archive restore` against a hostile or corrupt archive (issue 27, item 9d). Restore reads
 * only the members the live history's stubs name, each within the size its stub records,
 * checks every digest before anything is written, and refuses in one line, changing nothing:
 * members with '..' or absolute names, symlink, hardlink, device and FIFO members, a member
 * that appears twice, one larger than its stub says, a gzip-compressed tarball, a folder
 * member that is a link (to /dev/zero, outside the archive) or a FIFO. A member no segment
 * names (a huge one included, or one the archive's own manifest lists) is never read.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { main } from '../../../cli/main.ts';
import { idlePersona, snapshot, type Persona } from './helpers.ts';

async function cli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: (s) => void (out += s), stderr: (s) => void (err += s), cwd, env: {} });
  return { code, out, err };
}

interface Entry {
  header: Partial<tar.Header> & { name: string };
  bytes: Buffer;
}

/** Every entry of a tarball as it is (the test's own reader: no bounds, it reads what the test wrote). */
async function entries(file: string): Promise<Entry[]> {
  const out: Entry[] = [];
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => parts.push(c as Buffer));
      stream.on('end', () => {
        out.push({ header, bytes: Buffer.concat(parts) });
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  fs.createReadStream(file).pipe(extract);
  await done;
  return out;
}

/** Writes `list` as a tarball at `file` (links and odd names included, as an attacker would). */
async function pack(file: string, list: Entry[]): Promise<void> {
  const p = tar.pack();
  const chunks: Buffer[] = [];
  p.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((r) => p.on('end', () => r()));
  for (const e of list) {
    if (e.header.type === 'file' || e.header.type === undefined) p.entry({ ...e.header, size: e.bytes.length } as tar.Header, e.bytes);
    else p.entry({ ...e.header, size: 0 } as tar.Header);
  }
  p.finalize();
  await ended;
  fs.writeFileSync(file, Buffer.concat(chunks));
}

const SEGMENT_2 = 'ada/events/000002.jsonl.gz';

describe('archive restore against a hostile tarball', () => {
  let p: Persona;
  let tarFile: string;
  let original: Entry[];

  before(async () => {
    p = idlePersona('jsonl-fs');
    await p.cycles(80);
    const to = path.join(p.dir, 'archive');
    fs.mkdirSync(to);
    const archived = await cli(['archive', '--persona', 'ada', '--through-segment', '2', '--to', to, '--format', 'tarball', '--state-dir', p.stateDir, '--json'], p.dir);
    assert.equal(archived.code, 0, archived.err);
    tarFile = JSON.parse(archived.out).archive.path as string;
    original = await entries(tarFile);
    assert.ok(original.some((e) => e.header.name === SEGMENT_2));
  });

  /** Restore from a tarball made of `list` (or raw bytes): refused in one line matching `pattern`; the persona is as it was. */
  async function refused(list: Entry[] | Buffer, pattern: RegExp): Promise<void> {
    if (Buffer.isBuffer(list)) fs.writeFileSync(tarFile, list);
    else await pack(tarFile, list);
    const state = snapshot(p.personaDir);
    const r = await cli(['archive', 'restore', '--persona', 'ada', '--state-dir', p.stateDir], p.dir);
    assert.notEqual(r.code, 0, r.out);
    assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
    assert.match(r.err, /^runtimectl: RTC_ERR_HISTORY_ARCHIVE: /);
    assert.match(r.err, pattern);
    assert.deepEqual(snapshot(p.personaDir), state, 'nothing was changed');
  }

  const swapped = (name: string, header: Partial<tar.Header>, bytes = Buffer.alloc(0)): Entry[] =>
    original.map((e) => (e.header.name === name ? { header: { ...e.header, ...header }, bytes } : e));

  test("a member named with '..' or an absolute path is refused, even one no segment names", async () => {
    await refused([...original, { header: { name: '../../escape.txt', type: 'file', mode: 0o644 }, bytes: Buffer.from('x') }], /member "\.\.\/\.\.\/escape\.txt" has an unsafe name/);
    await refused([{ header: { name: '/etc/cron.d/evil', type: 'file', mode: 0o644 }, bytes: Buffer.from('x') }, ...original], /member "\/etc\/cron\.d\/evil" has an unsafe name/);
    await refused([...original, { header: { name: 'ada/../../x', type: 'file', mode: 0o644 }, bytes: Buffer.from('x') }], /unsafe name/);
  });

  test('a symlink, hardlink, device or FIFO member is refused, in place of a segment or beside it', async () => {
    await refused(swapped(SEGMENT_2, { type: 'symlink', linkname: '/etc/passwd' }), new RegExp(`member ${SEGMENT_2} is a symlink, not a regular file`));
    await refused(swapped(SEGMENT_2, { type: 'link', linkname: 'ada/events/000001.jsonl.gz' }), new RegExp(`member ${SEGMENT_2} is a link, not a regular file`));
    await refused([...original, { header: { name: 'ada/dev', type: 'character-device', devmajor: 1, devminor: 5 }, bytes: Buffer.alloc(0) }], /member ada\/dev is a character-device/);
    await refused([...original, { header: { name: 'ada/pipe', type: 'fifo' }, bytes: Buffer.alloc(0) }], /member ada\/pipe is a fifo/);
  });

  test('a member that appears twice is refused (which copy would be restored is not for the archive to decide)', async () => {
    const second = original.find((e) => e.header.name === SEGMENT_2)!;
    await refused([...original, second], new RegExp(`member ${SEGMENT_2} appears twice`));
  });

  test('a segment member larger or smaller than its stub records is refused before it is read; same size, other bytes, by its digest', async () => {
    const real = original.find((e) => e.header.name === SEGMENT_2)!.bytes;
    await refused(swapped(SEGMENT_2, {}, Buffer.concat([real, Buffer.alloc(1)])), new RegExp(`member ${SEGMENT_2} holds ${real.length + 1} bytes, not the ${real.length} the live history keeps`));
    // A gzip bomb in the segment's place: inflates to 64 MiB, is not the segment's size.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    await refused(swapped(SEGMENT_2, {}, bomb), new RegExp(`member ${SEGMENT_2} holds ${bomb.length} bytes, not the ${real.length}`));
    const flipped = Buffer.from(real);
    flipped[flipped.length - 5] = flipped[flipped.length - 5]! ^ 0xff;
    await refused(swapped(SEGMENT_2, {}, flipped), new RegExp(`member ${SEGMENT_2} does not hash to the digest the live history keeps for segment 2; nothing was restored`));
  });

  test('a gzip-compressed tarball is refused; a truncated one is refused as unreadable', async () => {
    await pack(tarFile, original);
    const plain = fs.readFileSync(tarFile);
    await refused(gzipSync(plain), /a gzip-compressed tarball; runtimectl archives are plain \.tar files/);
    await refused(plain.subarray(0, 700), /not a readable tarball|is missing from the tarball/);
  });

  test('a blob the restored trace records name, gone from the live store, comes back from the archive only with its digest; a link or other bytes are refused', async () => {
    const manifest = JSON.parse(original.find((e) => e.header.name === 'ada/manifest.json')!.bytes.toString('utf8')) as { blobs: { digest: string; member: string }[] };
    assert.ok(manifest.blobs.length > 0, 'the archived trace refers to blobs');
    const { digest, member } = manifest.blobs[0]!;
    const live = path.join(p.personaDir, 'trace', 'blobs', digest.slice('sha256:'.length));
    const saved = fs.readFileSync(live);
    fs.rmSync(live);
    try {
      await refused(swapped(member, {}, Buffer.from('not the blob')), new RegExp(`member ${member} does not hash to its digest; nothing was restored`));
      await refused(swapped(member, { type: 'symlink', linkname: '/etc/passwd' }), new RegExp(`member ${member} is a symlink`));
      assert.ok(!fs.existsSync(live), 'no blob was written by a refused restore');
    } finally {
      fs.writeFileSync(live, saved);
    }
  });

  test('members no segment names are never read: a 32 MiB stray, a manifest listing a blob with a hostile name; the restore goes on', async () => {
    const manifest = original.find((e) => e.header.name === 'ada/manifest.json')!;
    const doc = JSON.parse(manifest.bytes.toString('utf8')) as { blobs: { digest: string; member: string }[] };
    doc.blobs.push({ digest: `sha256:${'0'.repeat(64)}`, member: '../../../../etc/shadow' });
    const list = original.map((e) => (e === manifest ? { header: e.header, bytes: Buffer.from(JSON.stringify(doc)) } : e));
    list.push({ header: { name: 'ada/huge.bin', type: 'file', mode: 0o644 }, bytes: Buffer.alloc(32 * 1024 * 1024) });
    list.push({ header: { name: 'ada/events/000099.jsonl.gz', type: 'file', mode: 0o644 }, bytes: gzipSync(Buffer.alloc(64 * 1024 * 1024)) });
    await pack(tarFile, list);
    // One blob the archived trace refers to is gone from the live store: the restore brings it back.
    const blob = JSON.parse(manifest.bytes.toString('utf8')).blobs[0] as { digest: string };
    const live = path.join(p.personaDir, 'trace', 'blobs', blob.digest.slice('sha256:'.length));
    const saved = fs.readFileSync(live);
    fs.rmSync(live);
    const r = await cli(['archive', 'restore', '--persona', 'ada', '--state-dir', p.stateDir, '--json'], p.dir);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out);
    assert.deepEqual(report.events, [1, 2]);
    assert.deepEqual(report.trace, [1, 2]);
    assert.equal(report.blobs, 1);
    assert.deepEqual(fs.readFileSync(live), saved);
    assert.ok(!fs.existsSync(path.join(p.personaDir, 'logs', 'segments', '000099.jsonl.gz')));
    const full = await cli(['verify', '--full', '--state-dir', p.stateDir], p.dir);
    assert.equal(full.code, 0, full.out);
  });
});

describe('archive restore against a hostile folder archive', () => {
  let p: Persona;
  let root: string;
  let member: string;
  let saved: Buffer;

  before(async () => {
    p = idlePersona('jsonl-fs');
    await p.cycles(80);
    root = path.join(p.dir, 'archive');
    fs.mkdirSync(root);
    const archived = await cli(['archive', '--persona', 'ada', '--through-segment', '2', '--to', root, '--format', 'folder', '--state-dir', p.stateDir, '--json'], p.dir);
    assert.equal(archived.code, 0, archived.err);
    member = path.join(root, SEGMENT_2);
    saved = fs.readFileSync(member);
  });

  async function refused(pattern: RegExp): Promise<void> {
    const state = snapshot(p.personaDir);
    const r = await cli(['archive', 'restore', '--persona', 'ada', '--state-dir', p.stateDir], p.dir);
    assert.notEqual(r.code, 0, r.out);
    assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
    assert.match(r.err, /^runtimectl: RTC_ERR_HISTORY_ARCHIVE: /);
    assert.match(r.err, pattern);
    assert.deepEqual(snapshot(p.personaDir), state, 'nothing was changed');
  }

  function put(make: () => void): void {
    fs.rmSync(member, { force: true, recursive: true });
    make();
  }

  test('a member that is a link (to /dev/zero, to a file outside), a FIFO, or too large is refused without reading it whole', async () => {
    put(() => fs.symlinkSync('/dev/zero', member));
    await refused(new RegExp(`member ${SEGMENT_2} is a symbolic link`));
    const outside = path.join(p.dir, 'outside.gz');
    fs.writeFileSync(outside, saved);
    put(() => fs.symlinkSync(outside, member));
    await refused(/is a symbolic link/);
    put(() => execFileSync('mkfifo', [member]));
    await refused(/not a regular file/);
    put(() => fs.writeFileSync(member, Buffer.concat([saved, Buffer.alloc(4096)])));
    await refused(new RegExp(`holds ${saved.length + 4096} bytes, not the ${saved.length}`));
  });

  test('a member folder that is a link out of the archive is refused', async () => {
    const events = path.dirname(member);
    const elsewhere = path.join(p.dir, 'elsewhere');
    fs.cpSync(events, elsewhere, { recursive: true });
    fs.rmSync(events, { recursive: true });
    fs.symlinkSync(elsewhere, events);
    fs.writeFileSync(path.join(elsewhere, '000002.jsonl.gz'), saved);
    await refused(/leads outside the archive folder/);
    fs.rmSync(events);
    fs.renameSync(elsewhere, events);
  });

  test('put back as it was, the folder archive restores', async () => {
    put(() => fs.writeFileSync(member, saved));
    const r = await cli(['archive', 'restore', '--persona', 'ada', '--state-dir', p.stateDir, '--json'], p.dir);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).events, [1, 2]);
  });
});
