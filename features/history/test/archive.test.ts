/**
 * Retention: sealed segments archived to a folder or a tarball, only their digests left in
 * the live history; verify still proves it continuous, status and activity still answer,
 * the loop goes on; restore puts them back. Refusals: an archive reaching the open segment,
 * a tarball with a member missing, a persona another process writes: one line, nothing changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import tar from 'tar-stream';
import { main } from '../../../cli/main.ts';
import { openBackend } from '../../persistence/open.ts';
import { acquireFileWriterLock } from '../../persistence/state/writer-lock.ts';
import { activityOf } from '../../activity/report.ts';
import { personaActivity } from '../../activity/collect.ts';
import { BACKENDS, idlePersona, readAllEvents, snapshot } from './helpers.ts';

async function cli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: (s) => void (out += s), stderr: (s) => void (err += s), cwd, env: {} });
  return { code, out, err };
}


for (const backend of BACKENDS) {
  for (const format of ['folder', 'tarball'] as const) {
    test(`${backend}, ${format}: archived segments leave their digests; verify, status, activity and the loop carry on; restore brings them back`, async () => {
      const p = idlePersona(backend);
      await p.cycles(80);
      const before = await readAllEvents(p.personaDir);
      const nowMs = p.time.clock();
      const week = activityOf(before, { persona: 'ada', backend, windowMs: 7 * 86_400_000, nowMs });
      const to = path.join(p.dir, 'archive');
      fs.mkdirSync(to);
      const archived = await cli(['archive', '--persona', 'ada', '--through-segment', '2', '--to', to, '--format', format, '--state-dir', p.stateDir, '--json'], p.dir);
      assert.equal(archived.code, 0, archived.err);
      const report = JSON.parse(archived.out);
      assert.deepEqual(report.events, [1, 2]);
      if (format === 'tarball') assert.match(report.archive.path, /ada-segments-000001-000002\.tar$/);

      const b = await openBackend(p.personaDir, undefined, { readonly: true });
      const listing = b.events.history.list().segments;
      await b.close();
      assert.ok(listing[0]!.archived && listing[1]!.archived && !listing[2]!.archived, 'segments 1 and 2 are stubs, 3 is live');
      await assert.rejects(readAllEvents(p.personaDir), { code: 'RTC_ERR_HISTORY_ARCHIVED', message: /segment 1 \(seq 1\.\.\d+\) is archived in .*restore it with "runtimectl archive restore"/ });

      for (const args of [['verify'], ['verify', '--full']]) {
        const v = await cli([...args, '--state-dir', p.stateDir], p.dir);
        assert.equal(v.code, 0, v.out);
        assert.match(v.out, /ada {2}events {2}ok {2}\d+ event\(s\), last seq \d+; \w+: .*\(2 archived\)|ada {2}events {2}ok/);
      }
      assert.deepEqual(await personaActivity(p.stateDir, 'ada', { windowMs: 7 * 86_400_000, nowMs }), week, 'activity answers from the rollups of archived segments too');
      const again = await p.cycles(1);
      assert.equal(again.reports[0]!.cycle, 81, 'the loop carries on from its checkpoint');

      const restored = await cli(['archive', 'restore', '--persona', 'ada', '--state-dir', p.stateDir, '--json'], p.dir);
      assert.equal(restored.code, 0, restored.err);
      assert.deepEqual(JSON.parse(restored.out).events, [1, 2]);
      const after = await readAllEvents(p.personaDir);
      assert.deepEqual(after.slice(0, before.length), before, 'the restored history is the original, event for event');
      const full = await cli(['verify', '--full', '--state-dir', p.stateDir], p.dir);
      assert.equal(full.code, 0, full.out);
    });
  }
}

test('an archive that would take the open segment is refused, naming it, and nothing changes', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(30);
  const b = await openBackend(p.personaDir, undefined, { readonly: true });
  const open = b.events.openSegment().index;
  await b.close();
  const before = snapshot(p.personaDir);
  const to = path.join(p.dir, 'archive');
  const refused = await cli(['archive', '--persona', 'ada', '--through-segment', String(open), '--to', to, '--state-dir', p.stateDir], p.dir);
  assert.notEqual(refused.code, 0);
  assert.match(refused.err, /RTC_ERR_HISTORY_RETENTION: ada\/logs\/events\.jsonl: segment \d+ is the open segment .* would drop unsealed data \(nothing was changed\)/);
  assert.equal(refused.err.trim().split('\n').length, 1, 'one line');
  assert.deepEqual(snapshot(p.personaDir), before);
  assert.ok(!fs.existsSync(to), 'no archive was written');
});

test('archive and archive restore wait for no one: a persona with a writer (a running loop) is refused, naming the holder, and nothing changes', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(30);
  const lock = acquireFileWriterLock(p.personaDir, 'ada', 'run');
  try {
    const before = snapshot(p.personaDir);
    const to = path.join(p.dir, 'archive');
    for (const args of [['archive', '--persona', 'ada', '--through-segment', '1', '--to', to], ['archive', 'restore', '--persona', 'ada']]) {
      const refused = await cli([...args, '--state-dir', p.stateDir], p.dir);
      assert.notEqual(refused.code, 0, args.join(' '));
      assert.match(refused.err, /RTC_ERR_PERSONA_LOCKED: persona ada already has a writer: .*; archive( restore)? refused/);
      assert.equal(refused.err.trim().split('\n').length, 1, 'one line');
      assert.deepEqual(snapshot(p.personaDir), before);
    }
    assert.ok(!fs.existsSync(to), 'no archive was written');
  } finally {
    lock.release();
  }
});

test('a tarball with a member missing is refused by restore, naming the member, and nothing changes', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(80);
  const to = path.join(p.dir, 'archive');
  fs.mkdirSync(to);
  const archived = await cli(['archive', '--persona', 'ada', '--through-segment', '2', '--to', to, '--format', 'tarball', '--state-dir', p.stateDir, '--json'], p.dir);
  assert.equal(archived.code, 0, archived.err);
  const file = JSON.parse(archived.out).archive.path as string;
  // Rewrite the tarball without segment 2's member.
  const members = new Map<string, Buffer>();
  const extract = tar.extract();
  const read = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => parts.push(c as Buffer));
      stream.on('end', () => {
        members.set(header.name, Buffer.concat(parts));
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  fs.createReadStream(file).pipe(extract);
  await read;
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((r) => pack.on('end', () => r()));
  for (const [name, bytes] of members) if (!name.endsWith('events/000002.jsonl.gz')) pack.entry({ name, size: bytes.length }, bytes);
  pack.finalize();
  await ended;
  fs.writeFileSync(file, Buffer.concat(chunks));
  const before = snapshot(p.personaDir);
  const restored = await cli(['archive', 'restore', '--persona', 'ada', '--state-dir', p.stateDir], p.dir);
  assert.notEqual(restored.code, 0);
  assert.match(restored.err, /RTC_ERR_HISTORY_ARCHIVE: .*\.tar: member ada\/events\/000002\.jsonl\.gz is missing from the tarball; nothing was changed/);
  assert.deepEqual(snapshot(p.personaDir), before);
});

test('the history.yaml policy archives sealed segments as the loop seals, and says so in the log', async () => {
  const p = idlePersona('jsonl-fs');
  const to = path.join(p.dir, 'archive');
  fs.writeFileSync(path.join(p.personaDir, 'history.yaml'), `schema_version: 1\nretention: { mode: archive, after_days: 1, to: ${JSON.stringify(to)}, format: folder }\n`);
  await p.cycles(100);
  const b = await openBackend(p.personaDir, undefined, { readonly: true });
  const segments = b.events.history.list().segments;
  const lastArchived = segments.filter((s) => s.archived).at(-1)?.archived?.last_seq ?? 0;
  const live = [...b.events.readAfter(lastArchived)];
  await b.close();
  const said = live.filter((e) => e.type === 'history_archived');
  assert.ok(said.length > 0, 'the loop logged what it archived');
  assert.deepEqual(Object.keys(said[0]!.payload.archive as object).sort(), ['kind', 'name'], 'the event names the archive without a host path');
  assert.ok(segments.some((s) => s.archived), 'old segments were archived');
  assert.ok(segments.at(-1)!.archived === undefined, 'the newest sealed segment is younger than a day and stays live');
  assert.ok(fs.existsSync(path.join(to, 'ada', 'manifest.json')));
  const v = await cli(['verify', '--full', '--state-dir', p.stateDir], p.dir);
  assert.equal(v.code, 0, v.out);
});

test('archiving collects trace blobs no live record refers to, but not young ones a running loop may be about to use', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(80);
  const blobs = path.join(p.personaDir, 'trace', 'blobs');
  fs.mkdirSync(blobs, { recursive: true });
  const { createHash } = await import('node:crypto');
  const put = (text: string, ageMs: number) => {
    const name = createHash('sha256').update(text).digest('hex');
    const file = path.join(blobs, name);
    fs.writeFileSync(file, text);
    const when = new Date(Date.now() - ageMs);
    fs.utimesSync(file, when, when);
    return file;
  };
  const old = put('an orphan from a crash long ago', 3 * 86_400_000);
  const young = put('stored a moment ago for the next record', 1000);
  const kept = fs.readdirSync(blobs).filter((n) => n !== path.basename(old) && n !== path.basename(young));
  const to = path.join(p.dir, 'archive');
  const r = await cli(['archive', '--persona', 'ada', '--through-segment', '1', '--to', to, '--state-dir', p.stateDir, '--json'], p.dir);
  assert.equal(r.code, 0, r.err);
  assert.ok(!fs.existsSync(old), 'an old blob no record refers to is collected');
  assert.ok(fs.existsSync(young), 'a young one is kept');
  for (const name of kept) assert.ok(fs.existsSync(path.join(blobs, name)), `${name}, referenced by the live trace, stays`);
  assert.equal(JSON.parse(r.out).blobs_collected, 1);
});
