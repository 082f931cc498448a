/**
 * Backend parity: jsonl-fs and sqlite run the shared backend suite (backend-suite.ts: the same
 * event lines and hashes as the JSONL log, records byte for byte, refusals, read-only, the
 * ledger, an export round trip), keep their state where the README says, and refuse each
 * other's ledger.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBackend } from '../index.ts';
import { personaDir, sha256File } from './helpers.ts';
import { backendSuite, chainOf, exercise } from './backend-suite.ts';
import { ledgerOf } from '../../ledger/access.ts';
import { prepareLedgerPlugin } from '../../ledger/plugin-host.ts';

// openBackend builds no ledger isolate (the ledger is a part of the backend only callers that use it prepare).
await prepareLedgerPlugin();

const BACKENDS = ['jsonl-fs', 'sqlite'] as const;

/** What the files of a persona folder are (sqlite's read-only handles may add the WAL sidecars -wal and -shm of a WAL database). */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const file = path.join(dir, f);
    if (/-(wal|shm)$/.test(f) || !fs.statSync(file).isFile()) continue;
    out[f] = sha256File(file);
  }
  return out;
}

for (const name of BACKENDS) backendSuite({ name, fingerprint: files });

test('both file backends keep their state where the README says', async () => {
  for (const name of BACKENDS) {
    const { dir, lines } = await chainOf(name);
    if (name === 'jsonl-fs') {
      assert.equal(fs.readFileSync(path.join(dir, 'logs/events.jsonl'), 'utf8'), lines, 'the JSONL file is exactly these lines');
    } else {
      assert.ok(fs.existsSync(path.join(dir, 'persistence.db')));
      assert.ok(!fs.existsSync(path.join(dir, 'logs/events.jsonl')), 'the sqlite backend writes no JSONL log');
    }
  }
  const dir = personaDir();
  const backend = await openBackend(dir, 'jsonl-fs');
  await exercise(backend);
  assert.equal(fs.readFileSync(path.join(dir, 'brain/memory/brain.json'), 'utf8'), backend.memory.readBrain());
  assert.equal(fs.readFileSync(path.join(dir, 'review/proposals.jsonl'), 'utf8'), `${backend.proposals.lines().join('\n')}\n`);
  await backend.close();
});

test('the ledger goes through features/ledger in the backend\'s own format', async () => {
  for (const name of BACKENDS) {
    const dir = personaDir();
    const backend = await openBackend(dir, name);
    assert.equal(ledgerOf(backend).format, name);
    assert.equal(ledgerOf(backend).exportDoc(), undefined, 'no ledger yet');
    const { store } = ledgerOf(backend).open();
    store.addTask({ title: 'first', by: 'tester', now: 1 });
    store.close();
    assert.equal(ledgerOf(backend).exportDoc()?.tasks.length, 1);
    assert.deepEqual(ledgerOf(backend).check(), []);
    assert.equal(ledgerOf(backend).file(), fs.realpathSync(path.join(dir, 'orchestra/orchestra.db')));
    await backend.close();
    const other = await openBackend(dir, name === 'sqlite' ? 'jsonl-fs' : 'sqlite');
    assert.throws(() => ledgerOf(other).open(), /RTC_ERR_LEDGER_BACKEND_MISMATCH|is a .* ledger but/);
    await other.close();
  }
});
