/**
 * What the soak runs: N personas, each with `executor.command` running the fake agent
 * (bench/fixtures/soak-agent.cjs) on a session cadence, one tool plugin the agent calls over
 * MCP (`tool.soak`), and a hostile phase selector (`phase.soak-hostile`, in the process tier)
 * that faults every F of a persona's cycles, in turn: it throws, spins past its CPU limit,
 * allocates past its memory limit, and answers outside its contract.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import type { SoakOptions } from './options.ts';

export const AGENT = path.join(PROJECT_ROOT, 'bench', 'fixtures', 'soak-agent.cjs');

/** The four faults the hostile selector takes in turn, by name (the summary counts cycles by them). */
export const FAULTS = ['throws', 'spins past its CPU limit', 'allocates past its memory limit', 'answers outside its contract'] as const;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function writePlugins(dir: string, o: SoakOptions): void {
  write(
    path.join(dir, 'tool-soak', 'plugin.yaml'),
    `id: tool.soak
version: 1.0.0
kind: tool
entry: mod.ts
description: "The soak's tool, counting the words and lines of a text."
sandbox: default
permissions: {}
limits: { memoryMb: 32, cpuMs: 200 }
exports: [tally]
tools:
  - export: tally
    description: Counts the words and lines of a text.
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
`,
  );
  write(path.join(dir, 'tool-soak', 'mod.ts'), `export function tally(args: { text: string }) {\n  return { words: args.text.split(/\\s+/).filter(Boolean).length, lines: args.text.split('\\n').length };\n}\n`);
  write(
    path.join(dir, 'phase-soak-hostile', 'plugin.yaml'),
    `id: phase.soak-hostile
version: 1.0.0
kind: phase-selector
entry: mod.ts
description: "The soak's hostile phase selector. Round-robin, except every ${o.faultEvery}th cycle of a persona, when it faults (throws, spins, allocates, answers garbage, in turn)."
sandbox: default
permissions: {}
limits: { memoryMb: 32, cpuMs: 200 }
exports: [pick]
`,
  );
  write(
    path.join(dir, 'phase-soak-hostile', 'mod.ts'),
    `const EVERY = ${o.faultEvery};
export function pick(input: { cycle: number; phases: string[] }) {
  if (input.cycle % EVERY === 0) {
    const fault = Math.floor(input.cycle / EVERY) % 4;
    if (fault === 0) throw new Error('soak fault: thrown at cycle ' + input.cycle);
    if (fault === 1) for (;;) {}
    if (fault === 2) {
      const hog: number[][] = [];
      for (;;) hog.push(new Array(1 << 20).fill(input.cycle));
    }
    return { phase: 42, note: 'outside the contract' } as unknown as { phase: string };
  }
  return { phase: input.phases[(input.cycle - 1) % input.phases.length]! };
}
`,
  );
}

/** The personas' profiles; returns their files. */
export function writeProfiles(dir: string, o: SoakOptions, osSandbox: boolean): { ids: string[]; files: string[] } {
  const ids: string[] = [];
  const files: string[] = [];
  const node = JSON.stringify(process.execPath);
  // The agent's text travels in its arguments (node -e): the session's sandbox shows node and the MCP bridge, not bench/.
  const source = readFileSync(AGENT, 'utf8').replace(/^#!.*\n/, '');
  const args = ['-e', source, '--', '--call=tool.soak.tally'].map((a) => JSON.stringify(a)).join(', ');
  for (let i = 0; i < o.personas; i++) {
    const id = `soak-${String(i).padStart(3, '0')}`;
    const file = path.join(dir, `${id}.yaml`);
    write(
      file,
      `id: ${id}
runtime: agent-${id}
executor:
  plugin: executor.command
  config:
    executor.command:
      command: ${node}
      args: [${args}]
      spends_tokens: false
tools: [tool.soak]
phase: phase.soak-hostile
cadence: { cycle_seconds: ${o.cycleSeconds}, periodic_seconds: 86400 }
budget: { daily_tokens: 1000000, wall_seconds_per_cycle: 60 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [${node}] }
os_sandbox: ${osSandbox ? 'required' : 'off'}
bindings: [ledger, proposals]
`,
    );
    ids.push(id);
    files.push(file);
  }
  return { ids, files };
}
