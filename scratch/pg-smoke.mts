import { startPostgres } from '../test/support/postgres.ts';
import { openBackend } from '../features/persistence/index.ts';
import { closeBridges } from '../kernel/persistence/postgres/pg-bridge.ts';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
const pg = await startPostgres();
try {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'state', 'alice'); fs.mkdirSync(dir, { recursive: true });
  const b = await openBackend(dir, 'postgres', { dsn: pg.dsn });
  await b.events.append('test.one', { a: 1 });
  b.memory.writeBrain('{"x":1}');
  b.memory.appendLongTerm('hello\n');
  b.proposals.append(['{"a":1}', '{"b":2}']);
  console.log('brain', b.memory.readBrain(), 'lt', JSON.stringify(b.memory.readLongTerm()), 'props', b.proposals.lines());
  console.log('events', [...b.events.read()].map(e => e.type));
  await b.close();
  console.log(pg.admin("SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname LIKE 'rtc_%' ORDER BY 1"));
  console.log(pg.admin("SELECT persona, name FROM runtimectl.memory"));
  console.log(pg.admin("SELECT component, version FROM runtimectl_kernel.schema_versions"));
} catch (e) { console.log('ERR', e); } finally { await closeBridges(); pg.stop(); }
