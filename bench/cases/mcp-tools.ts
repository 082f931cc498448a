/**
 * Tools over MCP (issue 19).
 *
 * tool call round trip: an SDK Client over stdio calls `echo` (small JSON in and out):
 *   project: `runtimectl mcp serve` (a persona opened for tool calls only) → the tool's
 *            isolate in the trusted tier, and the same tool in the process tier (sandbox
 *            profile `default`); each call is also a tool_call event and a trace line, both
 *            fsynced before the answer;
 *   floor:   the same SDK's Server answering the same tool in plain Node over stdio.
 * first tools/list: spawning `runtimectl mcp serve` to its first answered tools/list (warm
 *   bundle cache), with the persona's tool plan (written by the serve above: the list is
 *   answered before the kernel loads) and without it (the plan removed before each spawn: the
 *   full start check first), next to the plain SDK server's, spawned as it is and with
 *   `--no-node-snapshot` (what any process hosting isolated-vm on Node 20 pays). The time
 *   ends at the answer; closing the client is outside it.
 * the session path (issue 25, item 5): `runtimectl run` runs the persona in the background
 *   (a long cadence: between cycles), and an SDK Client spawns what a harness is handed, `node
 *   features/mcp/bridge.mjs`, piped to the kernel's relay socket where the kernel serves MCP
 *   itself: tool call round trip, and spawn-to-first-tools/list; besides, `mcp serve` run by
 *   hand while the kernel runs (its fast path: it pipes to the same socket), and what one
 *   append+fsync of a line costs on this disk (a call through the kernel makes two).
 * --version: `runtimectl --version` (the precompiled CLI) next to a bare `node -e 0`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { interleave } from '../lib/interleave.ts';
import { timeRow, verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { summarize } from '../lib/stats.ts';
import { PAYLOAD } from './call-round-trip.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'runtimectl.js');
const PLAIN = path.join(ROOT, 'bench', 'fixtures', 'plain-mcp-server.mjs');
const BRIDGE = path.join(ROOT, 'features', 'mcp', 'bridge.mjs');

function writeTools(root: string): { plugins: string; persona: string; state: string } {
  const plugins = path.join(root, 'plugins');
  for (const [folder, id, sandbox] of [['tool-echo', 'tool.echo', 'trusted'], ['tool-echo-pool', 'tool.echo-pool', 'default']] as const) {
    const dir = path.join(plugins, folder);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'plugin.yaml'),
      `id: ${id}\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: Echoes its payload.\nsandbox: ${sandbox}\nexports: [echo]\ntools:\n  - export: echo\n    description: Echoes its payload.\n    input_schema: { type: object, properties: { payload: {} } }\n`,
    );
    writeFileSync(path.join(dir, 'mod.ts'), 'export function echo(args: { payload: unknown }) { return args.payload; }\n');
  }
  const persona = path.join(root, 'bench-tools.yaml');
  writeFileSync(persona, 'id: bench-tools\nruntime: agent-bench-tools\nexecutor: { plugin: executor.none }\ntools: [tool.echo, tool.echo-pool]\nbudget: { daily_tokens: 1000, cpu_seconds_per_cycle: 86400, wall_seconds_per_cycle: 86400 }\nallow: { read: ["${state}"], write: ["${state}"] }\n');
  return { plugins, persona, state: path.join(root, 'state') };
}

async function connect(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, stderr: 'inherit' }));
  return client;
}

/** `runtimectl run` of the persona with a long cadence (one cycle, then it waits), and the socket its relay pointer names. */
async function runInBackground(args: string[], cwd: string, state: string): Promise<{ socket: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'run', ...args, '--every', '3600'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const pointer = path.join(state, 'bench-tools', 'tools-relay.json');
  for (let i = 0; i < 600 && !existsSync(pointer); i++) await sleep(100);
  if (!existsSync(pointer)) throw new Error('runtimectl run did not write its relay pointer within 60 s');
  const socket = (JSON.parse(readFileSync(pointer, 'utf8')) as { socket: string }).socket;
  return {
    socket,
    stop: async () => {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** One append of a short line and its fsync, as the kernel's event log and trace each do per call. */
function appendFsync(file: string): (() => void) & { close(): void } {
  const fd = openSync(file, 'a');
  const line = Buffer.from(`${JSON.stringify({ type: 'tool_call', payload: PAYLOAD })}\n`);
  const run = () => {
    writeSync(fd, line);
    fsyncSync(fd);
  };
  run.close = () => closeSync(fd);
  return run;
}

export async function mcpTools(ctx: BenchContext): Promise<ResultRow[]> {
  const root = path.join(ctx.tmp, 'mcp-tools');
  mkdirSync(root, { recursive: true });
  const t = writeTools(root);
  const serveArgs = ['--no-node-snapshot', BIN, 'mcp', 'serve', '--persona', t.persona, '--state-dir', t.state, '--plugins-dir', t.plugins];
  const project = await connect(process.execPath, serveArgs, root);
  const plain = await connect(process.execPath, [PLAIN], ROOT);
  const call = (client: Client, name: string) => client.callTool({ name, arguments: { payload: PAYLOAD } });
  const budget = ctx.quick ? { warmup: 20, rounds: 100 } : { warmup: 100, rounds: 1500 };
  ctx.log(`  mcp tool call: ${budget.rounds} rounds`);
  const samples = await interleave(
    [
      { name: 'trusted', run: () => call(project, 'tool.echo.echo') },
      { name: 'process', run: () => call(project, 'tool.echo-pool.echo') },
      { name: 'plain', run: () => call(plain, 'echo') },
    ],
    budget,
  );
  await project.close();
  await plain.close();

  const listRounds = ctx.quick ? { warmup: 1, rounds: 3 } : { warmup: 2, rounds: 12 };
  ctx.log(`  mcp serve to first tools/list: ${listRounds.rounds} rounds`);
  // timed to the first answer; the client is closed after the timing (Variant.after)
  let listed: Client | undefined;
  const firstList = async (command: string, args: string[], cwd: string, env: Record<string, string> = {}) => {
    listed = await connect(command, args, cwd, env);
    await listed.listTools();
  };
  const closeListed = async () => {
    await listed?.close();
    listed = undefined;
  };
  const planFile = path.join(t.state, 'bench-tools', 'tools-plan.json');
  if (!existsSync(planFile)) throw new Error(`mcp serve wrote no tool plan at ${planFile}`);
  const starts = await interleave(
    [
      { name: 'serve', run: () => firstList(process.execPath, serveArgs, root), after: closeListed },
      {
        name: 'serve-no-plan',
        run: () => {
          rmSync(planFile, { force: true });
          return firstList(process.execPath, serveArgs, root);
        },
        after: closeListed,
      },
      { name: 'plain', run: () => firstList(process.execPath, [PLAIN], ROOT), after: closeListed },
      { name: 'plain-flag', run: () => firstList(process.execPath, ['--no-node-snapshot', PLAIN], ROOT), after: closeListed },
    ],
    listRounds,
  );

  const versionRounds = ctx.quick ? { warmup: 1, rounds: 5 } : { warmup: 3, rounds: 30 };
  const cli = await interleave(
    [
      { name: 'version', run: () => spawnSync(process.execPath, ['--no-node-snapshot', BIN, '--version'], { stdio: 'ignore' }) },
      { name: 'node', run: () => spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' }) },
    ],
    versionRounds,
  );

  // The session path: a running kernel (its own state, so the rows above opened the persona here).
  const runState = path.join(root, 'state-run');
  const kernel = await runInBackground(['--persona', t.persona, '--state-dir', runState, '--plugins-dir', t.plugins], root, runState);
  const bridgeEnv = { RUNTIMECTL_TOOLS_SOCKET: kernel.socket };
  const fsync = appendFsync(path.join(root, 'fsync-probe.jsonl'));
  let session: Map<string, number[]>;
  let sessionStarts: Map<string, number[]>;
  try {
    const bridged = await connect(process.execPath, [BRIDGE], root, bridgeEnv);
    const plain2 = await connect(process.execPath, [PLAIN], ROOT);
    ctx.log(`  mcp tool call through the bridge to a running kernel: ${budget.rounds} rounds`);
    session = await interleave(
      [
        { name: 'bridge', run: () => call(bridged, 'tool.echo.echo') },
        { name: 'bridge-process', run: () => call(bridged, 'tool.echo-pool.echo') },
        { name: 'plain', run: () => call(plain2, 'echo') },
        { name: 'fsync', run: () => fsync() },
      ],
      budget,
    );
    await bridged.close();
    await plain2.close();
    ctx.log(`  bridge (and mcp serve beside a running kernel) to first tools/list: ${listRounds.rounds} rounds`);
    sessionStarts = await interleave(
      [
        { name: 'bridge', run: () => firstList(process.execPath, [BRIDGE], root, bridgeEnv), after: closeListed },
        { name: 'serve-fast', run: () => firstList(process.execPath, ['--no-node-snapshot', BIN, 'mcp', 'serve', '--persona', t.persona, '--state-dir', runState, '--plugins-dir', t.plugins], root), after: closeListed },
        { name: 'plain', run: () => firstList(process.execPath, [PLAIN], ROOT), after: closeListed },
      ],
      listRounds,
    );
  } finally {
    fsync.close();
    await kernel.stop();
  }

  const floor = summarize(samples.get('plain')!);
  const trusted = summarize(samples.get('trusted')!);
  const processTier = summarize(samples.get('process')!);
  const trustedRatio = trusted.median / floor.median;
  const processExtra = processTier.median - floor.median;
  const serveStart = summarize(starts.get('serve')!);
  const plainStart = summarize(starts.get('plain')!);
  const flagStart = summarize(starts.get('plain-flag')!);
  const FIRST_LIST = 'mcp serve start to first answered tools/list (warm cache)';
  const version = summarize(cli.get('version')!);
  const node = summarize(cli.get('node')!);
  const CALL = 'MCP tool call round trip over stdio, small JSON';
  const sessionFloor = summarize(session.get('plain')!);
  const bridge = summarize(session.get('bridge')!);
  const bridgeProcess = summarize(session.get('bridge-process')!);
  const fsyncOne = summarize(session.get('fsync')!);
  const bridgeRatio = bridge.median / sessionFloor.median;
  const bridgeStart = summarize(sessionStarts.get('bridge')!);
  const serveFast = summarize(sessionStarts.get('serve-fast')!);
  const sessionCall = 'MCP tool call round trip, the session path: bridge → the running kernel\'s MCP relay';
  const sessionStart = 'the session\'s MCP server: spawn to first answered tools/list (kernel running)';
  const why = (what: string) =>
    `${what}. Each call through mcp serve is durable before it is answered: a tool_call event appended to the persona's hash-chained log and a line of trace/tools.jsonl, each fsynced (two fsyncs per call), besides the schema check, the isolate call and the broker; the plain SDK server does none of it. What would close it: group the call's event and trace line into one fsync, or answer before the fsync and make the audit durable in the background (weaker: a crash could lose the record of an answered call).`;
  return [
    timeRow({
      case: CALL,
      variant: 'runtimectl mcp serve → trusted-tier tool isolate',
      role: 'project',
      summary: trusted,
      unit: 'auto',
      floor,
      target: '≤ 1.5x the plain SDK server (median)',
      verdict: verdict(trustedRatio <= 1.5),
      note: 'SDK Client over stdio; every call audited (tool_call event) and recorded (trace/tools.jsonl), both fsynced.',
      whyMissed: why(`the trusted-tier call costs ${trustedRatio.toFixed(2)}x the plain SDK server`),
    }),
    timeRow({
      case: CALL,
      variant: 'runtimectl mcp serve → process-tier tool (sandbox host process)',
      role: 'project',
      summary: processTier,
      unit: 'auto',
      floor,
      target: '≤ floor + 1 ms (median)',
      verdict: verdict(processExtra <= 1),
      whyMissed: why(`the process-tier call costs ${processExtra.toFixed(2)} ms more than the plain SDK server (median)`),
    }),
    timeRow({ case: CALL, variant: "the SDK's Server in plain Node answering the same tool", role: 'floor', summary: floor, unit: 'auto' }),
    timeRow({
      case: FIRST_LIST,
      variant: "spawn runtimectl mcp serve, initialize, tools/list: the persona's tool plan",
      role: 'project',
      summary: serveStart,
      unit: 'ms',
      floor: plainStart,
      target: '< 300 ms (median)',
      verdict: verdict(serveStart.median < 300),
      note: "initialize and tools/list answered from <persona>/tools-plan.json (written by the last serve, checked against the files it came from) before the kernel loads; the persona is opened at the first call.",
      whyMissed: `the first tools/list came ${serveStart.median.toFixed(0)} ms after the spawn (median), ${(serveStart.median - flagStart.median).toFixed(0)} ms after the plain SDK server's started with --no-node-snapshot (${flagStart.median.toFixed(0)} ms) and ${(flagStart.median - plainStart.median).toFixed(0)} ms of that flag alone, which isolated-vm needs on Node 20 in the process that will host the persona's isolates. The rest: checking that the precompiled CLI is fresh (a stat per source file), loading its entry, and checking the plan's inputs (a stat per file of the plugin and skill folders).`,
    }),
    timeRow({ case: FIRST_LIST, variant: 'spawn runtimectl mcp serve, initialize, tools/list: no plan (the full start check first)', role: 'alternative', summary: summarize(starts.get('serve-no-plan')!), unit: 'ms', floor: plainStart }),
    timeRow({ case: FIRST_LIST, variant: 'the plain SDK server, spawned', role: 'floor', summary: plainStart, unit: 'ms' }),
    timeRow({ case: FIRST_LIST, variant: 'the plain SDK server, spawned with --no-node-snapshot', role: 'info', summary: flagStart, unit: 'ms', floor: plainStart }),
    timeRow({
      case: 'runtimectl --version',
      variant: 'node --no-node-snapshot bin/runtimectl.js --version (precompiled CLI)',
      role: 'project',
      summary: version,
      unit: 'ms',
      floor: node,
      target: '< 250 ms (median)',
      verdict: verdict(version.median < 250),
      note: 'the bin runs .build/runtimectl.mjs while every source it was built from is unchanged (else tsx).',
      whyMissed: `--version took ${version.median.toFixed(0)} ms median against ${node.median.toFixed(0)} ms for a bare node start on this loaded machine.`,
    }),
    timeRow({ case: 'runtimectl --version', variant: 'node -e 0', role: 'floor', summary: node, unit: 'ms' }),
    timeRow({
      case: sessionCall,
      variant: 'node bridge.mjs → relay socket → trusted-tier tool isolate (runtimectl run, between cycles)',
      role: 'project',
      summary: bridge,
      unit: 'auto',
      floor: sessionFloor,
      target: '≤ 1.5x the plain SDK server (median)',
      verdict: verdict(bridgeRatio <= 1.5),
      note: `what an agent's harness runs: no runtimectl in the session; every call a tool_call event and a trace line, each fsynced (one append+fsync here: ${fsyncOne.median.toFixed(3)} ms median).`,
      whyMissed: `the call through the bridge costs ${bridgeRatio.toFixed(2)}x the plain SDK server (${bridge.median.toFixed(3)} ms against ${sessionFloor.median.toFixed(3)} ms median; the extra ${(bridge.median - sessionFloor.median).toFixed(3)} ms). Measured beside it, one append+fsync of a line on this disk takes ${fsyncOne.median.toFixed(3)} ms median (p99 ${fsyncOne.p99.toFixed(3)} ms); the kernel makes two per call, in turn, before it answers (the tool_call event in the hash-chained log, the line of trace/tools.jsonl): ${(2 * fsyncOne.median).toFixed(3)} ms of the extra, the rest the bridge's pipe hop, the schema check, the isolate call and the broker. What would close it: one fsync per call (the trace line in the event, or both in one group commit), or answering before the audit is durable (weaker: a crash could lose the record of an answered call).`,
    }),
    timeRow({
      case: sessionCall,
      variant: 'node bridge.mjs → relay socket → process-tier tool (sandbox host process)',
      role: 'project',
      summary: bridgeProcess,
      unit: 'auto',
      floor: sessionFloor,
    }),
    timeRow({ case: sessionCall, variant: "the SDK's Server in plain Node answering the same tool", role: 'floor', summary: sessionFloor, unit: 'auto' }),
    timeRow({ case: sessionCall, variant: 'one append + fsync of a short line (the kernel makes two per call)', role: 'info', summary: fsyncOne, unit: 'auto' }),
    timeRow({
      case: sessionStart,
      variant: 'spawn node bridge.mjs, initialize, tools/list',
      role: 'project',
      summary: bridgeStart,
      unit: 'ms',
      floor: summarize(sessionStarts.get('plain')!),
      target: '< 300 ms (median)',
      verdict: verdict(bridgeStart.median < 300),
      note: 'the bridge imports only node:net; the kernel answers initialize and tools/list itself.',
      whyMissed: `the bridge's first tools/list came ${bridgeStart.median.toFixed(0)} ms after the spawn (median), on this loaded machine.`,
    }),
    timeRow({
      case: sessionStart,
      variant: 'runtimectl mcp serve while run runs the persona (its fast path: pipes to the running kernel)',
      role: 'alternative',
      summary: serveFast,
      unit: 'ms',
      floor: summarize(sessionStarts.get('plain')!),
      note: 'an operator\'s MCP client: node, the precompiled CLI and the persona\'s profile, then the bridge; the persona is not opened.',
    }),
    timeRow({ case: sessionStart, variant: 'the plain SDK server, spawned', role: 'floor', summary: summarize(sessionStarts.get('plain')!), unit: 'ms' }),
  ];
}
