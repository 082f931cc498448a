/**
 * The hook for the persona's MCP server (LoopOptions.mcpServer; issue 19 serves the persona's
 * tools there): the executor hands it to its harness (codex: `-c mcp_servers.NAME.*`), and the
 * harness can start it as its own child inside the OS sandbox, the server's code visible
 * read-only. A real MCP server (@modelcontextprotocol/server-everything) answers `initialize`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cycleEvents, FAKE_BIN, fakeEnv, fakeTime, packet, profile, run, tempDir } from '../../features/science-loop/test/helpers.ts';
import { NO_OS_SANDBOX } from '../support/os-sandbox.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

test('the MCP server the kernel hands an executor runs as the harness\'s child inside the OS sandbox', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-mcp-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const p = profile(
    dir,
    'ada',
    `runtime: agent-ada
executor: { plugin: executor.codex, config: { provider_hosts: [] } }
budget: { daily_tokens: 100000 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex] }`,
  );
  // "codex" here is the stand-in harness that starts the MCP server it is handed
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(path.join(FAKE_BIN, 'mcp-harness.cjs'), path.join(bin, 'codex'));
  const [r] = await run([p], {
    stateDir,
    env: fakeEnv({ PATH: `${bin}:/usr/bin:/bin` }),
    ...fakeTime(),
    mcpServer: () => ({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], reads: [path.join(ROOT, 'node_modules')] }),
  });
  const report = r!.reports[0]!;
  assert.equal(report.act.status, 'ok', report.defer_reason ?? '');
  const event = cycleEvents(stateDir, 'ada')[0]!;
  const session = path.join(stateDir, path.dirname(event.executor_session.manifest_path));
  assert.match(readFileSync(path.join(session, 'stdout.txt'), 'utf8'), /^mcp server: .+/m);
  const args = JSON.parse(readFileSync(path.join(session, 'manifest.json'), 'utf8')).args as string[];
  assert.ok(args.includes(`mcp_servers.everything.command=${JSON.stringify(process.execPath)}`));
  assert.equal(event.executor_session.os_sandbox.mode, 'bubblewrap');
});
