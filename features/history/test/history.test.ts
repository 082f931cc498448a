/**
 * A persona's history over days, on both backends: sealed segments (one a day here),
 * checkpoints at each seal and at close, a start that reads the checkpoint and the open
 * segment only, a checkpoint that disagrees refused and rebuilt by a full scan, status and
 * activity from rollups giving exactly the figures of every raw event, and the sealed side
 * refused at open when a segment is missing, truncated, reordered or edited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { main } from '../../../cli/main.ts';
import { openBackend } from '../../persistence/open.ts';
import { activityOf } from '../../activity/report.ts';
import { personaActivity } from '../../activity/collect.ts';
import { readStatus } from '../../status/status.ts';
import { run } from '../../science-loop/test/helpers.ts';
import { BACKENDS, idlePersona, readAllEvents, snapshot } from './helpers.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';


function startOf(events: EventEnvelope[]): Record<string, any> {
  return events.filter((e) => e.type === 'persona_start').at(-1)!.payload.history as Record<string, any>;
}

for (const backend of BACKENDS) {
  test(`${backend}: daily segments are sealed, and a restart reads the checkpoint and the open segment only`, async () => {
    const p = idlePersona(backend);
    const first = await p.cycles(60);
    assert.equal(first.reports.length, 60, first.stopped);
    const events = await readAllEvents(p.personaDir);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), 'one chain, seq 1.. with no gap, across segments');
    const headers = events.filter((e) => e.type === 'log_segment');
    assert.ok(headers.length >= 2, `60 hourly cycles cross two UTC days: ${headers.length} seals`);
    for (const h of headers) {
      const sealed = (h.payload as any).sealed;
      assert.equal(sealed.last_seq, h.seq - 1);
      assert.equal(sealed.last_hash, h.prev, "the header's prev is the sealed segment's last hash");
    }

    const second = await p.cycles(1);
    assert.equal(second.reports[0]!.cycle, 61, 'the cycle count comes from the checkpoint');
    const start = startOf(await readAllEvents(p.personaDir));
    assert.equal(start.checkpoint, 'used');
    assert.equal(start.sealed_segments_read, 0, 'no sealed segment is read at start');
    assert.equal(start.sealed_segments, headers.length);
    assert.ok(start.folded_events <= 2, `only the records after the shutdown checkpoint are folded (${start.folded_events})`);
  });

  test(`${backend}: status and activity from rollups give the figures of every raw event`, async () => {
    const p = idlePersona(backend);
    await p.cycles(30, 1800);
    await p.cycles(50, 3600);
    const nowMs = p.time.clock();
    const events = await readAllEvents(p.personaDir);
    for (const windowMs of [30 * 60_000, 3 * 3_600_000, 24 * 3_600_000, 3 * 86_400_000, 7 * 86_400_000]) {
      const fromRollups = await personaActivity(p.stateDir, 'ada', { windowMs, nowMs });
      const fromEvents = activityOf(events, { persona: 'ada', backend, windowMs, nowMs });
      assert.deepEqual(fromRollups, fromEvents, `window ${windowMs / 60_000} min`);
    }
    const [row] = await readStatus(p.stateDir, nowMs);
    const cycles = events.filter((e) => e.type === 'continuous_loop_cycle');
    assert.equal(row!.cycles, cycles.length);
    assert.equal(row!.last_cycle!.cycle, 80);
    assert.equal(row!.events_24h, events.filter((e) => nowMs - Date.parse(e.at) < 86_400_000 && Date.parse(e.at) <= nowMs).length);
    assert.ok(row!.history!.sealed_segments >= 3);
    assert.equal(row!.history!.checkpoint!.kind, 'shutdown');
  });

  test(`${backend}: a checkpoint that disagrees with the log is refused, kept aside, and rebuilt by a full scan`, async () => {
    const p = idlePersona(backend);
    await p.cycles(40);
    const b = await openBackend(p.personaDir);
    const cp = JSON.parse(b.events.history.readDocument('checkpoint')!);
    cp.chain.hash = 'f'.repeat(64);
    b.events.history.writeDocument('checkpoint', JSON.stringify(cp));
    await b.close();
    const again = await p.cycles(1);
    assert.equal(again.reports[0]!.cycle, 41, 'the full scan gives the right count');
    const start = startOf(await readAllEvents(p.personaDir));
    assert.equal(start.checkpoint, 'refused');
    assert.match(start.reason, /checkpoint.*the record at seq \d+ does not carry the hash it records/);
    assert.ok(start.set_aside, 'the refused checkpoint is kept as evidence');
    assert.ok(start.folded_events >= 40);
    const b2 = await openBackend(p.personaDir, undefined, { readonly: true });
    const rebuilt = JSON.parse(b2.events.history.readDocument('checkpoint')!);
    await b2.close();
    assert.equal(rebuilt.kind, 'shutdown');
    const third = await p.cycles(1);
    assert.equal(third.reports[0]!.cycle, 42);
    assert.equal(startOf(await readAllEvents(p.personaDir)).checkpoint, 'used', 'the next start uses the rebuilt checkpoint');
  });

  test(`${backend}: a checkpoint naming a sealed segment that is not the one stored is refused`, async () => {
    const p = idlePersona(backend);
    await p.cycles(40);
    const b = await openBackend(p.personaDir);
    const cp = JSON.parse(b.events.history.readDocument('checkpoint')!);
    assert.ok(cp.sealed, 'the persona has sealed a segment');
    cp.sealed.sha256 = '0'.repeat(64);
    b.events.history.writeDocument('checkpoint', JSON.stringify(cp));
    await b.close();
    await p.cycles(1);
    const start = startOf(await readAllEvents(p.personaDir));
    assert.equal(start.checkpoint, 'refused');
    assert.match(start.reason, /does not match segment \d+ as it was sealed/);
  });
}

/** The one line a persona's refused start gives (the composed loop refuses a persona alone; the others would run). */
async function refusalOf(p: ReturnType<typeof idlePersona>): Promise<string> {
  const runs = await run([p.persona], { stateDir: p.stateDir, clock: p.time.clock, sleep: p.time.sleep, cycles: 1, everySeconds: 0 });
  const refused = runs[0]?.refused;
  assert.ok(refused, `the persona is refused at start (it ran ${runs[0]?.reports.length ?? 0} cycles)`);
  assert.equal(refused.length, 1, refused.join('\n'));
  assert.ok(!refused[0]!.includes('\n'), 'one line');
  return refused[0]!;
}

/** Runs one cycle and expects the start to be refused with `code` naming `names`, the persona's files untouched. */
async function assertOpenRefused(p: ReturnType<typeof idlePersona>, code: string, names: RegExp): Promise<void> {
  const before = snapshot(p.personaDir);
  const line = await refusalOf(p);
  assert.ok(line.includes(code), line);
  assert.match(line, names);
  assert.deepEqual(snapshot(p.personaDir), before, "the persona's files are byte for byte as they were");
}

function segment(p: ReturnType<typeof idlePersona>, n: number): string {
  return path.join(p.personaDir, 'logs', 'segments', `${String(n).padStart(6, '0')}.jsonl.gz`);
}

test('a missing sealed segment is refused at start, naming it', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(60);
  fs.rmSync(segment(p, 1));
  await assertOpenRefused(p, 'RTC_ERR_HISTORY_SEGMENT', /segments\/000001\.jsonl\.gz: sealed segment 1 is missing/);
});

test('a FIFO in place of the segment index, a document or a sealed segment: status and verify refuse in one line, naming it, and never wait on it', { timeout: 300_000 }, async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(60);
  const logs = path.join(p.personaDir, 'logs');
  for (const rel of ['index.jsonl', 'checkpoint.json', 'segments/000001.jsonl.gz']) {
    const file = path.join(logs, rel);
    const kept = fs.readFileSync(file);
    fs.rmSync(file);
    execFileSync('mkfifo', [file]);
    try {
      // Each command meets the files it reads: status the index and checkpoint (not an old segment), verify --full the index and every segment.
      const commands = { 'index.jsonl': [['status'], ['verify', '--full']], 'checkpoint.json': [['status']], 'segments/000001.jsonl.gz': [['verify', '--full']] }[rel]!;
      for (const args of commands) {
        let out = '';
        let err = '';
        const code = await main([...args, '--state-dir', p.stateDir], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), cwd: p.dir, env: {} });
        assert.equal(code, 1, `${args.join(' ')} with ${rel} a FIFO: ${out}${err}`);
        assert.match(out + err, new RegExp(`logs/${rel.replace(/\./g, '\\.')}: is a FIFO \\(named pipe\\), not a regular file`), `${args.join(' ')} with ${rel} a FIFO`);
      }
    } finally {
      fs.rmSync(file);
      fs.writeFileSync(file, kept);
    }
  }
});

test('a truncated sealed segment is refused at start, naming it', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(60);
  const file = segment(p, 1);
  fs.truncateSync(file, fs.statSync(file).size - 10);
  await assertOpenRefused(p, 'RTC_ERR_HISTORY_SEGMENT', /000001\.jsonl\.gz: is \d+ bytes, but segment 1 was sealed at \d+: it was truncated, replaced or reordered/);
});

test('reordered sealed segments are refused at start', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(60);
  const one = fs.readFileSync(segment(p, 1));
  fs.writeFileSync(segment(p, 1), fs.readFileSync(segment(p, 2)));
  fs.writeFileSync(segment(p, 2), one);
  await assertOpenRefused(p, 'RTC_ERR_HISTORY_SEGMENT', /00000[12]\.jsonl\.gz: /);
});

test('an edited last sealed segment is refused at start; an edited older one is found by verify', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(80);
  const last = fs.readdirSync(path.join(p.personaDir, 'logs', 'segments')).sort().at(-1)!;
  const lastFile = path.join(p.personaDir, 'logs', 'segments', last);
  const original = fs.readFileSync(lastFile);
  // The same size, another byte: the digest recorded at the seal catches it.
  const edited = Buffer.from(original);
  edited[edited.length - 12]! ^= 0x01;
  fs.writeFileSync(lastFile, edited);
  await assertOpenRefused(p, 'RTC_ERR_HISTORY_SEGMENT', /: its bytes do not hash to the digest recorded when segment \d+ was sealed/);
  fs.writeFileSync(lastFile, original);

  // An older segment re-compressed with one payload character changed keeps its chain hashes
  // wrong: verify (incremental, which sees its identity changed, and full) names it.
  const file = segment(p, 1);
  const text = gunzipSync(fs.readFileSync(file)).toString('utf8').replace('"cycle":1,', '"cycle":7,');
  assert.ok(text.includes('"cycle":7,"defer_reason"') || text.includes('"cycle":7,'), 'the edit is in the segment');
  fs.writeFileSync(file, gzipSync(Buffer.from(text)));
  const { main } = await import('../../../cli/main.ts');
  for (const args of [['verify'], ['verify', '--full']]) {
    let out = '';
    const code = await main([...args, '--state-dir', p.stateDir], { stdout: (s: string) => void (out += s), stderr: () => undefined, env: {}, cwd: p.dir } as never);
    assert.equal(code, 1, out);
    assert.match(out, /ada {2}events {2}FAILED/);
    assert.match(out, /segments\/000001\.jsonl\.gz/);
  }
});

test('sqlite: a deleted or edited sealed segment row is refused at start, and the database is left as it is', async () => {
  const p = idlePersona('sqlite');
  await p.cycles(60);
  // The kernel's events database (features/persistence/storage/sqlite-events-db.ts), beside the plugin's persistence.db.
  const db = path.join(p.personaDir, 'logs', 'events.db');
  const dump = () => {
    const h = new Database(db, { readonly: true });
    try {
      return JSON.stringify([h.prepare('SELECT * FROM events ORDER BY seq').all(), h.prepare('SELECT segment, hex(data) AS d, stub FROM event_segments ORDER BY segment').all(), h.prepare('SELECT * FROM event_index').all()]);
    } finally {
      h.close();
    }
  };
  const edit = (sql: string) => {
    const h = new Database(db);
    h.exec(sql);
    h.close();
  };
  edit('DELETE FROM event_segments WHERE segment = 1');
  let before = dump();
  assert.match(await refusalOf(p), /event_segments\/1: sealed segment 1 is missing/);
  assert.equal(dump(), before);

  const q = idlePersona('sqlite');
  await q.cycles(60);
  const db2 = path.join(q.personaDir, 'logs', 'events.db');
  const h = new Database(db2);
  const last = (h.prepare('SELECT MAX(segment) AS n FROM event_segments').get() as { n: number }).n;
  const row = h.prepare('SELECT data FROM event_segments WHERE segment = ?').get(last) as { data: Buffer };
  const edited = Buffer.from(row.data);
  edited[edited.length - 12]! ^= 0x01;
  h.prepare('UPDATE event_segments SET data = ? WHERE segment = ?').run(edited, last);
  h.close();
  before = JSON.stringify(new Database(db2, { readonly: true }).prepare('SELECT hex(data) AS d FROM event_segments').all());
  assert.match(await refusalOf(q), /its bytes do not hash to the digest recorded when segment \d+ was sealed/);
  assert.equal(JSON.stringify(new Database(db2, { readonly: true }).prepare('SELECT hex(data) AS d FROM event_segments').all()), before);
});

test('a seal cut short after its segment was stored is completed at the next open', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(5);
  // What a crash leaves between storing segment 1 and replacing the open file: the segment
  // holds exactly the open file's lines, the open file still holds them too.
  const log = path.join(p.personaDir, 'logs', 'events.jsonl');
  fs.mkdirSync(path.join(p.personaDir, 'logs', 'segments'), { recursive: true });
  fs.writeFileSync(segment(p, 1), gzipSync(fs.readFileSync(log)));
  const again = await p.cycles(1);
  assert.equal(again.reports[0]!.cycle, 6);
  const events = await readAllEvents(p.personaDir);
  const header = events.find((e) => e.type === 'log_segment')!;
  assert.equal((header.payload as any).sealed.segment, 1);
  assert.equal(startOf(events).resumed_seal, 1);
  const b = await openBackend(p.personaDir, undefined, { readonly: true });
  assert.equal(b.events.verify().ok, true);
  await b.close();
});

test('an idle cycle costs at most 500 bytes on disk once sealed (compression counts)', async () => {
  const p = idlePersona('jsonl-fs', 'schema_version: 1\nsegments: { max_bytes: 262144, rotate: size }\n');
  await p.cycles(400, 60);
  const segmentsDir = path.join(p.personaDir, 'logs', 'segments');
  const sealed = fs.readdirSync(segmentsDir);
  assert.ok(sealed.length >= 2, 'several segments were sealed by size');
  const b = await openBackend(p.personaDir, undefined, { readonly: true });
  const entries = b.events.history.readIndex().map((l) => JSON.parse(l) as { records: number; gz_bytes: number; bytes: number });
  await b.close();
  const records = entries.reduce((n, e) => n + e.records, 0);
  const onDisk = entries.reduce((n, e) => n + e.gz_bytes, 0);
  const raw = entries.reduce((n, e) => n + e.bytes, 0);
  assert.ok(onDisk / records <= 500, `${(onDisk / records).toFixed(0)} bytes per sealed record (raw ${(raw / records).toFixed(0)})`);
});
