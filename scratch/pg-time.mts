import { startPostgres } from '../test/support/postgres.ts';
import { openBackend } from '../features/persistence/index.ts';
import { closeBridges } from '../kernel/persistence/postgres/pg-bridge.ts';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
const HERE = path.resolve('features/persistence/test');
const pg = await startPostgres();
try {
  const plugins = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-pl-'));
  const folder = path.join(plugins, 'persistence-hostile-pg'); fs.mkdirSync(folder);
  fs.copyFileSync(path.join(HERE, 'fixtures/plugins/persistence-hostile/mod.ts'), path.join(folder, 'mod.ts'));
  fs.writeFileSync(path.join(folder, 'plugin.yaml'), fs.readFileSync(path.join(HERE, 'fixtures/plugins/persistence-hostile/plugin.yaml'), 'utf8').replace('id: persistence.hostile', 'id: persistence.hostile-pg').replace('bindings: [storage.files, storage.sqlite]', 'bindings: [storage.files, storage.postgres]'));
  const mk = (p: string) => { const d = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'state', p); fs.mkdirSync(d, { recursive: true }); fs.writeFileSync(path.join(d, 'attack.txt'), ''); return d; };
  const v = await openBackend(mk('victim'), 'postgres', { dsn: pg.dsn }); v.memory.writeBrain('{}'); await v.close();
  const b = await openBackend(mk('mallory'), 'hostile-pg', { dsn: pg.dsn, pluginsDir: plugins });
  for (const sql of process.argv.slice(2)) {
    const t = Date.now();
    const a = await b.callPlugin('tryOp', { op: 'storage.postgres.query', args: { sql } });
    console.log(Date.now() - t, 'ms', sql, JSON.stringify(a).slice(0, 200));
  }
  await b.close();
} finally { await closeBridges(); pg.stop(); }
