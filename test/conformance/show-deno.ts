/**
 * Prints what the real Deno gives for each conformance script (stdout, stderr, status), to
 * review that the scripts exercise what they claim to. Not a test.
 *   node --no-node-snapshot --import tsx test/conformance/show-deno.ts [name-substring...]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseEnv, conformanceDir, fill, freshDir, listScripts, readScriptSpec, runDeno, startServer } from './harness.ts';

const filters = process.argv.slice(2);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-conf-'));
const server = await startServer();
try {
  for (const fileName of listScripts().filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))) {
    const spec = readScriptSpec(fileName);
    const cwd = spec.cwdMode === 'tmp' ? freshDir(path.join(work, spec.name), spec.links) : conformanceDir;
    const values = { url: server.url, port: server.port, cwd };
    const flags = fill(spec.flags, values);
    const r = await runDeno(spec.file, flags, fill(spec.args, values), cwd, baseEnv(path.join(work, 'deno-dir'), spec.env));
    console.log(`==== ${spec.name}  [${flags.join(' ')}]  exit ${r.exitCode}`);
    process.stdout.write(r.stdout);
    if (r.stderr) console.log(`---- stderr\n${r.stderr.trimEnd()}`);
  }
} finally {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
