/**
 * The OS sandbox around an executor session, proven with a fake harness that tries what a
 * hostile agent would (test/fixtures/bin/hostile-cli): read the operator's ~/.ssh and another
 * persona's state, write the persona's own event log and outside its workspace, reach an
 * ungranted host (through the proxy and around it), and leave processes behind. Each is
 * refused; the network refusals are audited in the cycle event, the sandbox's view and its
 * leftovers are recorded in the session folder, and nothing is left running.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { verifyEventLog } from '../../kernel/events/verify.ts';
import { personaPaths, workspaceDir } from '../../features/persona-layout/layout.ts';
import { cycleEvents, FAKE_BIN, fakeEnv, fakeTime, packet, profile, readJson, run, tempDir } from '../../features/science-loop/test/helpers.ts';
import { NO_OS_SANDBOX, processesNamed } from '../support/os-sandbox.ts';

let server: http.Server;
let port = 0;
const hits: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('hello from the granted host');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());


test('a hostile harness in the OS sandbox: every escape refused, the network ones audited, nothing left running', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-osbox-');
  const stateDir = path.join(dir, 'state');
  const operatorHome = path.join(dir, 'operator-home');
  mkdirSync(path.join(operatorHome, '.ssh'), { recursive: true });
  writeFileSync(path.join(operatorHome, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
  const otherFile = path.join(stateDir, 'bo', 'brain', 'memory', 'long-term.md');
  mkdirSync(path.dirname(otherFile), { recursive: true });
  writeFileSync(otherFile, 'bo only\n');
  const tag = String(86_400 + (process.pid % 10_000));
  const own = personaPaths(stateDir, 'ada');
  const p = profile(
    dir,
    'ada',
    `runtime: agent-ada
executor:
  plugin: executor.command
  config: { command: hostile-cli, args: ["${operatorHome}", "${otherFile}", "${own.logFile}", "127.0.0.1:${port}", "${tag}"], spends_tokens: false }
allow:
  read: ["\${state}"]
  write: ["\${state}"]
  run: [hostile-cli]
  net: ["127.0.0.1:${port}"]`,
  );
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([p], { stateDir, env: fakeEnv({ HOME: operatorHome }), ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'executed', report.defer_reason ?? '');
  const session = path.join(own.sessionsDir, report.act.session!.run_id);
  const said = Object.fromEntries(
    readFileSync(path.join(session, 'stdout.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
  );
  assert.equal(said['read-ssh'], 'refused');
  assert.equal(said['read-root-ssh'], 'refused');
  assert.equal(said['read-other-persona'], 'refused');
  assert.equal(said['write-own-log'], 'refused');
  assert.equal(said['write-operator-home'], 'refused');
  assert.equal(said['write-usr'], 'refused');
  assert.equal(said['write-workspace'], 'ok');
  assert.equal(said['net-ungranted'], 'status 403');
  assert.match(said['net-ungranted-port']!, /^status 403 /);
  assert.match(said['net-direct']!, /^error E/, 'no route around the proxy');
  assert.equal(said['net-granted'], 'status 200 hello from the granted host');
  assert.equal(said.home, path.join(own.dir, 'brain', 'providers', 'command'));
  assert.deepEqual(hits, ['GET /hello'], 'only the granted request reached the host');

  // nothing reached the host: the operator's home, /tmp, the persona's own log
  assert.equal(existsSync(path.join(operatorHome, 'planted')), false);
  assert.equal(existsSync(`/tmp/rtc-escape-${tag}`), false, '/tmp in the sandbox is private');
  assert.equal(verifyEventLog(own.logFile).ok, true);
  assert.equal(readFileSync(otherFile, 'utf8'), 'bo only\n');
  assert.equal(readFileSync(path.join(workspaceDir(own), 'written-by-cli.txt'), 'utf8'), 'mine\n');

  // audited: each connection through the proxy is a capability decision of the executor
  const event = cycleEvents(stateDir, 'ada')[0]!;
  assert.ok(event.audit.denied.includes('executor.command run.net net:ungranted.invalid:443'), JSON.stringify(event.audit));
  assert.ok(event.audit.denied.includes('executor.command run.net net:127.0.0.1:1'), JSON.stringify(event.audit));
  const summary = event.executor_session.os_sandbox;
  assert.equal(summary.mode, 'bubblewrap');
  assert.equal(summary.leftover, 3, 'the children that tried to outlive it were counted (sleep, and setsid sh with its sleep)');
  assert.deepEqual(summary.net_granted, [`127.0.0.1:${port}`]);
  assert.deepEqual(summary.net_denied.sort(), ['127.0.0.1:1', 'ungranted.invalid:443']);
  // what it could see is recorded: exactly the trees of its grant, all inside its own folder
  const view = readJson(path.join(session, 'sandbox.json')).children[0].view;
  assert.deepEqual([...view.writable].sort(), [own.workspaceRoot, session, path.join(own.dir, 'brain', 'providers', 'command'), own.orchestraDir].sort(), 'its own session folder, not the sessions folder with its siblings');
  assert.deepEqual(view.readOnly.filter((p: string) => p.startsWith(stateDir)), []);

  // nothing outlived the session: the setsid child never wrote, no leftover is running
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(existsSync(path.join(workspaceDir(own), 'late.txt')), false);
  assert.deepEqual(processesNamed(tag), []);
  assert.equal(existsSync(path.join(stateDir, '.runtimectl', 'processes', 'ada', `${report.act.session!.run_id}.json`)), false, 'the process marker is gone with the process');
  assert.ok(readdirSync(FAKE_BIN).includes('hostile-cli'));
});
