/**
 * The executors against the real codex and claude CLIs, with no model API: every flag the
 * executors pass is one the CLI accepts, and a real session, run in the OS sandbox until its
 * provider answers 401 (a local stand-in reached only through the kernel's proxy, the one
 * host granted), records a complete session folder, with the CLI's own error text as the
 * reason and the CLI's state in the persona's provider home.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { personaPaths } from '../../features/persona-layout/layout.ts';
import { cycleEvents, fakeTime, packet, profile, readJson, run, tempDir } from '../../features/science-loop/test/helpers.ts';
import { NO_OS_SANDBOX } from '../support/os-sandbox.ts';
import { NO_REAL_CLIS, REAL_CLI_BIN } from '../support/real-clis.ts';

const skip = NO_REAL_CLIS || NO_OS_SANDBOX;
let server: http.Server;
let port = 0;
const requests: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key (local stand-in)', code: 'invalid_api_key' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

function env(extra: Record<string, string>): Record<string, string> {
  return { PATH: `${REAL_CLI_BIN}:/usr/bin:/bin`, HOME: tempDir('rtc-operator-home-'), ...extra };
}

/** Every option in `args` appears in the CLI's own help (the parse test below runs them for real too). */
function assertFlagsInHelp(args: readonly string[], help: string): void {
  for (const arg of args) {
    if (!arg.startsWith('-') || arg === '-') continue;
    const flag = arg.split('=')[0]!;
    assert.ok(new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}([\\s,=<]|$)`, 'm').test(help), `${flag} is not in the CLI's help`);
  }
}

function sessionFiles(stateDir: string, id: string): { dir: string; manifest: Record<string, any>; event: Record<string, any> } {
  const event = cycleEvents(stateDir, id)[0]!;
  const dir = path.join(stateDir, path.dirname(event.executor_session.manifest_path));
  return { dir, manifest: readJson(path.join(dir, 'manifest.json')), event };
}

test('real codex: a session in the OS sandbox runs to its provider error and records a complete session folder', { skip, timeout: 300_000 }, async () => {
  const dir = tempDir('rtc-real-codex-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Say hello\n');
  const provider = [
    '-c', 'model_provider=rtc_test', '-c', 'model_providers.rtc_test.name="rtc test"', '-c', `model_providers.rtc_test.base_url="http://127.0.0.1:${port}/v1"`,
    '-c', 'model_providers.rtc_test.wire_api="responses"', '-c', 'model_providers.rtc_test.env_key="OPENAI_API_KEY"',
    '-c', 'model_providers.rtc_test.request_max_retries=0', '-c', 'model_providers.rtc_test.stream_max_retries=0',
  ];
  const p = profile(
    dir,
    'ada',
    `runtime: agent-ada
executor: { plugin: executor.codex, config: { provider_hosts: ["127.0.0.1:${port}"], args: ${JSON.stringify(provider)} } }
budget: { daily_tokens: 100000, wall_seconds_per_cycle: 240 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: ["127.0.0.1:${port}"] }
env: [OPENAI_API_KEY]`,
  );
  const [r] = await run([p], { stateDir, env: env({ OPENAI_API_KEY: 'sk-test-not-a-real-key-0000' }), ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.act.status, 'failed', report.defer_reason ?? '');
  assert.match(report.defer_reason ?? '', /^codex exited with status 1: unexpected status 401 Unauthorized/);
  assert.ok(requests.some((q) => q.startsWith('POST /v1/responses')), 'codex reached the stand-in through the proxy');
  const s = sessionFiles(stateDir, 'ada');
  assert.deepEqual(readdirSync(s.dir).sort(), ['last-message.md', 'manifest.json', 'prompt.md', 'sandbox.json', 'stderr.txt', 'stdout.txt']);
  assert.equal(s.manifest.status, 'failed');
  assert.equal(s.manifest.exit_code, 1);
  assert.match(readFileSync(path.join(s.dir, 'stdout.txt'), 'utf8'), /"type":"turn.failed"/);
  assert.doesNotMatch(s.manifest.args.join(' '), /Say hello/, 'the prompt is not in argv');
  assert.deepEqual(s.event.executor_session.os_sandbox.net_granted, [`127.0.0.1:${port}`]);
  // codex kept its state in the persona's provider home, not the operator's
  const home = path.join(personaPaths(stateDir, 'ada').dir, 'brain', 'providers', 'codex');
  assert.ok(readdirSync(home).length > 0, 'CODEX_HOME was used');
  // every flag passed is in codex's own help
  const help = ['--help', 'exec --help'].map((a) => spawnSync(path.join(REAL_CLI_BIN, 'codex'), a.split(' '), { encoding: 'utf8' }).stdout).join('\n');
  assertFlagsInHelp(s.manifest.args, help);
});

test('real claude: a session in the OS sandbox runs to its provider error and records a complete session folder', { skip, timeout: 300_000 }, async () => {
  const dir = tempDir('rtc-real-claude-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'bo', 'q.md', '# Say hello\n');
  const p = profile(
    dir,
    'bo',
    `runtime: agent-bo
executor: { plugin: executor.claude, config: { provider_hosts: ["127.0.0.1:${port}"] } }
budget: { daily_tokens: 100000, wall_seconds_per_cycle: 240 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [claude], net: ["127.0.0.1:${port}"] }
env: [ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, CLAUDE_CODE_MAX_RETRIES]`,
  );
  // CLAUDE_CODE_MAX_RETRIES=0: claude otherwise retries a failing API for about three minutes.
  const [r] = await run([p], { stateDir, env: env({ ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key-0000', ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, CLAUDE_CODE_MAX_RETRIES: '0' }), ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.act.status, 'failed', report.defer_reason ?? '');
  // the reason is claude's own result text, not only its exit status
  assert.match(report.defer_reason ?? "", /^claude exited with status 1: .*(401|authenticat|API key)/i);
  assert.ok(requests.some((q) => q.startsWith('POST /v1/messages')), 'claude reached the stand-in through the proxy');
  const s = sessionFiles(stateDir, 'bo');
  assert.deepEqual(readdirSync(s.dir).sort(), ['last-message.md', 'manifest.json', 'prompt.md', 'sandbox.json', 'stderr.txt', 'stdout.txt']);
  const stdout = readFileSync(path.join(s.dir, 'stdout.txt'), 'utf8');
  const init = JSON.parse(stdout.split('\n').find((l) => l.includes('"subtype":"init"'))!);
  assert.equal(init.permissionMode, 'dontAsk');
  assert.ok(!init.tools.includes('WebFetch') && !init.tools.includes('WebSearch'), 'no web tools without a granted host beyond the provider');
  assert.deepEqual(init.mcp_servers, []);
  const home = path.join(personaPaths(stateDir, 'bo').dir, 'brain', 'providers', 'claude');
  assert.ok(existsSync(path.join(home, '.claude.json')) || readdirSync(home).length > 0, 'CLAUDE_CONFIG_DIR was used');
  const help = spawnSync(path.join(REAL_CLI_BIN, 'claude'), ['--help'], { encoding: 'utf8' }).stdout;
  assertFlagsInHelp(s.manifest.args, help);
});
