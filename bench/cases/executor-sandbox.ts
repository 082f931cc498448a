/**
 * Issue 16's figures.
 *
 * `executor-sandbox-start`: what the OS sandbox adds to starting a session. The same fake CLI
 * (test/fixtures/bin/codex, which reads its prompt from stdin and prints a turn's events) is
 * run through the subprocess runner unsandboxed (the operator's opt-out: the floor), in
 * bubblewrap with no network, and in bubblewrap with a granted host (the kernel's proxy and
 * the in-sandbox bridge started too): start to exit, interleaved, 20 rounds in a full run.
 *
 * `executor-stop`: the time from SIGTERM to the exit of `runtimectl run` with two personas'
 * sessions running (each a fake codex sleeping in its sandbox): the stop TERMs both, records
 * them interrupted and closes the logs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { grantView } from '../../sandboxes/subprocess/os-sandbox/grant-view.ts';
import { runCommand, type OsSandboxRequest } from '../../sandboxes/subprocess/run-command.ts';
import { personaPaths, workspaceDir } from '../../features/persona-layout/layout.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { interleave } from '../lib/interleave.ts';
import { timeRow, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { summarize } from '../lib/stats.ts';

const FAKE_BIN = path.join(PROJECT_ROOT, 'test', 'fixtures', 'bin');
const PROMPT = Buffer.from('# bench\n\nSay what you would do.\n');

function sandbox(ws: string, mode: 'bubblewrap' | 'off', net: string[]): OsSandboxRequest {
  const rule = (allow: string[]) => ({ allow, deny: [] as string[] });
  return {
    mode,
    grant: grantView({ layers: [{ label: 'bench', set: { read: rule([ws]), write: rule([ws]), net: rule(net) } }] }),
    context: { hide: [] },
    net: { allows: (hostPort) => net.includes(hostPort), denies: () => false, audit: () => undefined },
  };
}

export async function executorSandboxStart(ctx: BenchContext): Promise<ResultRow[]> {
  const CASE = 'starting an executor session (fake codex, start to exit)';
  const ws = path.join(ctx.tmp, 'osbox-ws');
  mkdirSync(ws, { recursive: true });
  const once = (mode: 'bubblewrap' | 'off', net: string[]) => async () => {
    const r = await runCommand({
      command: 'codex',
      args: ['exec', '--json', '-'],
      cwd: ws,
      env: { PATH: `${FAKE_BIN}:/usr/bin:/bin` },
      searchPath: `${FAKE_BIN}:/usr/bin:/bin`,
      input: PROMPT,
      wallMs: 60_000,
      outputBytes: 1 << 20,
      sandbox: sandbox(ws, mode, net),
    });
    if (r.code !== 0 || !r.stdout.includes('turn.completed')) throw new Error(`bench: the fake codex failed (${mode}): ${r.stderr.toString()}`);
  };
  const budget = ctx.quick ? { warmup: 1, rounds: 5 } : { warmup: 3, rounds: 20 };
  ctx.log(`  executor-sandbox-start: ${budget.rounds} rounds`);
  const samples = await interleave(
    [
      { name: 'off', run: once('off', []) },
      { name: 'bwrap', run: once('bubblewrap', []) },
      { name: 'bwrap-net', run: once('bubblewrap', ['api.openai.com:443']) },
    ],
    budget,
  );
  const floor = summarize(samples.get('off')!);
  return [
    timeRow({ case: CASE, variant: 'in the OS sandbox (bubblewrap), no network granted', role: 'project', summary: summarize(samples.get('bwrap')!), unit: 'ms', floor, note: 'plan from the grant, bwrap with every namespace, init script, the CLI' }),
    timeRow({ case: CASE, variant: 'in the OS sandbox, a host granted (kernel proxy + in-sandbox bridge)', role: 'project', summary: summarize(samples.get('bwrap-net')!), unit: 'ms', floor, note: 'adds the proxy on a Unix socket and a node bridge started inside (most of the difference: a node start)' }),
    timeRow({ case: CASE, variant: 'unsandboxed (os_sandbox: off)', role: 'floor', summary: floor, unit: 'ms', note: 'the same runner and CLI in a plain process group' }),
  ];
}

function profileFile(dir: string, id: string): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
runtime: agent-${id}
executor: { plugin: executor.codex, config: { args: ["--fake-early", "--fake-sleep=600"] } }
budget: { daily_tokens: 100000, wall_seconds_per_cycle: 900 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }
`,
  );
  return file;
}

async function oneStop(ctx: BenchContext, round: number): Promise<number> {
  const dir = path.join(ctx.tmp, `stop-${round}`);
  const stateDir = path.join(dir, 'state');
  const ids = ['ada', 'bo'];
  for (const id of ids) {
    mkdirSync(path.join(stateDir, id, 'inbox'), { recursive: true });
    writeFileSync(path.join(stateDir, id, 'inbox', 'q.md'), '# Q\n');
  }
  const files = ids.map((id) => profileFile(dir, id));
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(PROJECT_ROOT, 'bin', 'runtimectl.js'), 'run', ...files.flatMap((f) => ['--persona', f]), '--state-dir', stateDir], {
    env: { PATH: `${FAKE_BIN}:/usr/bin:/bin`, HOME: dir, RUNTIMECTL_CACHE_DIR: ctx.cacheDir },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = ids.map((id) => path.join(workspaceDir(personaPaths(stateDir, id)), 'fake-codex-prompt.txt'));
  const deadline = Date.now() + 120_000;
  while (!started.every((f) => existsSync(f))) {
    if (Date.now() > deadline) throw new Error('bench: the sessions did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
  const t0 = performance.now();
  child.kill('SIGTERM');
  const code = await exited;
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`bench: run exited ${code} after SIGTERM`);
  return ms;
}

export async function executorStop(ctx: BenchContext): Promise<ResultRow[]> {
  const rounds = ctx.quick ? 2 : 5;
  ctx.log(`  executor-stop: ${rounds} kernels with two sessions each`);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) samples.push(await oneStop(ctx, i));
  return [
    timeRow({
      case: 'SIGTERM to exit of `runtimectl run`, two sessions running',
      variant: 'both sessions TERMed, recorded interrupted, logs closed',
      role: 'project',
      summary: summarize(samples),
      unit: 'ms',
      target: '≤ 20 s (the default --stop-grace)',
      verdict: summarize(samples).p99 <= 20_000 ? 'met' : 'missed',
      note: `${rounds} kernels; each session a fake codex sleeping in its OS sandbox`,
    }),
  ];
}
