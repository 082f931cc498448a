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
 *   bundle cache), next to the plain SDK server's.
 * --version: `runtimectl --version` (the precompiled CLI) next to a bare `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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

async function connect(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stderr: 'inherit' }));
  return client;
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
  const firstList = async (command: string, args: string[], cwd: string) => {
    const client = await connect(command, args, cwd);
    await client.listTools();
    await client.close();
  };
  const starts = await interleave(
    [
      { name: 'serve', run: () => firstList(process.execPath, serveArgs, root) },
      { name: 'plain', run: () => firstList(process.execPath, [PLAIN], ROOT) },
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

  const floor = summarize(samples.get('plain')!);
  const trusted = summarize(samples.get('trusted')!);
  const processTier = summarize(samples.get('process')!);
  const trustedRatio = trusted.median / floor.median;
  const processExtra = processTier.median - floor.median;
  const serveStart = summarize(starts.get('serve')!);
  const version = summarize(cli.get('version')!);
  const node = summarize(cli.get('node')!);
  const CALL = 'MCP tool call round trip over stdio, small JSON';
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
      case: 'mcp serve start to first answered tools/list (warm cache)',
      variant: 'spawn runtimectl mcp serve, initialize, tools/list',
      role: 'project',
      summary: serveStart,
      unit: 'ms',
      floor: summarize(starts.get('plain')!),
      target: '< 300 ms (median)',
      verdict: verdict(serveStart.median < 300),
      note: 'includes starting node, the precompiled CLI, opening the persona (start checks, its event log) and listing its tools.',
      whyMissed: `the first tools/list came ${serveStart.median.toFixed(0)} ms after the spawn (median): node's own start, loading the CLI and the SDK, the persona's start checks (each tool plugin's bundle loaded once to check its exports) and opening its log. What would close it: answer initialize and tools/list from the manifests before the start checks finish.`,
    }),
    timeRow({ case: 'mcp serve start to first answered tools/list (warm cache)', variant: 'the plain SDK server, spawned', role: 'floor', summary: summarize(starts.get('plain')!), unit: 'ms' }),
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
  ];
}
