import Database from 'better-sqlite3';
const db = new Database(':memory:');
for (const sql of ['SELECT 1;', 'SELECT 1; PRAGMA x', 'SELECT 1; -- c', 'SELECT 1 /* x', ';SELECT 1', 'SELECT 1;;']) {
  try { db.prepare(sql); console.log('ok', JSON.stringify(sql)); } catch (e) { console.log('err', JSON.stringify(sql), e.message); }
}
try { db.prepare("SELECT load_extension('x')").get(); } catch (e) { console.log('load_extension:', e.message); }
console.log(db.prepare("PRAGMA compile_options").all().map(r=>r.compile_options).join(' '));
console.log(db.prepare("select name from pragma_module_list").all().map(r=>r.name).join(' '));
