/**
 * `runtimectl plugins new --kind KIND NAME [--dir DIR]`: writes a plugin that works as it
 * stands: a manifest, `mod.ts` typed by the kind's published contract, and a test in Deno's
 * style (`test/mod_test.ts`, `deno test --no-check`). `plugins check` accepts it and a persona
 * (or, for a gate check, a gate profile; for a loop step, a harness file the profile names)
 * can select it at once. Isolate kinds only: a
 * persistence backend's contract is a set of exports over storage bindings
 * (features/persistence/README.md).
 *
 * The folder stands alone: the contract's types are written into it (`contract.ts`,
 * contract-types.ts), never imported from the checkout by path, so it builds, type-checks and
 * runs wherever it is and however the checkout moves. Inside the checkout the manifest also
 * names its JSON Schema by a relative path (for an editor); outside, it names none.
 *
 * The manifest asks for `sandbox: default`, the isolating process tier: a new plugin is not
 * the kernel's code. An operator who vouches for it grants it the in-process tier per persona
 * (profile `trust:`), and only then does asking for `trusted` in its manifest take effect.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { contractModule } from './contract-types.ts';
import { RECORD_STEP } from '../../kernel/loop/harness.ts';
import { HarnessCatalog } from '../profiles/harness-catalog.ts';

/** The harness a new loop step is shown added to: the canonical loop's (policies/harnesses/). */
export const CANONICAL_HARNESS = 'continuous-science-loop';

export const SCAFFOLD_KINDS = ['tool', 'executor', 'budget-policy', 'phase-selector', 'gate-check', 'loop-step'] as const;
export type ScaffoldKind = (typeof SCAFFOLD_KINDS)[number];

/** The id prefix of each kind (`tool.<name>`), as the shipped plugins use. */
const PREFIX: Record<ScaffoldKind, string> = { tool: 'tool', executor: 'executor', 'budget-policy': 'budget', 'phase-selector': 'phase', 'gate-check': 'gate-check', 'loop-step': 'step' };
const NAME = /^[a-z][a-z0-9-]{0,40}$/;

export interface Scaffolded {
  id: string;
  dir: string;
  files: string[];
  /** the profile line that selects it */
  select: string;
  /** the file that line goes in (a loop step: a harness file the persona profile names) */
  selectIn: 'persona profile' | 'gate profile' | 'harness';
}

/** A relative path from `from` to the repository's `rel` when the folder is inside the checkout, else undefined (nothing ties the folder to a checkout). */
function inRepo(from: string, rel: string): string | undefined {
  const inside = path.relative(PROJECT_ROOT, from);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return undefined;
  return path.relative(from, path.join(PROJECT_ROOT, rel)).split(path.sep).join('/');
}

/** The sandbox line: the isolating tier, and how an operator grants more. */
const SANDBOX_LINE = `# The isolating tier (isolates in sandbox host processes). To run it in the kernel's process\n# ("sandbox: trusted"), an operator also lists its id under trust: in the persona profile.\nsandbox: default\n`;

function manifest(kind: ScaffoldKind, id: string, schemaRef: string | undefined): string {
  const modeline = schemaRef ? `# yaml-language-server: $schema=${schemaRef}\n` : '';
  const reference = schemaRef ? 'the schema above and docs/writing-plugins.md' : 'docs/writing-plugins.md and schemas/plugin-manifest.schema.json of runtimectl; "runtimectl plugins check" validates it';
  const head = `${modeline}# Written by "runtimectl plugins new"; the reference of each field: ${reference}.\nid: ${id}\nversion: 0.1.0\nkind: ${kind}\nentry: mod.ts\n`;
  const common = `${SANDBOX_LINE}permissions: {}\nbindings: []\nlimits: { memoryMb: 32, cpuMs: 500 }\n`;
  switch (kind) {
    case 'tool':
      return `${head}description: Greets someone by name (a starting point for a tool).\n${common}exports: [greet]\ntools:\n  - export: greet\n    description: Says hello to the person named.\n    input_schema:\n      type: object\n      properties:\n        name: { type: string, description: who to greet }\n      required: [name]\n      additionalProperties: false\n`;
    case 'executor':
      return `${head}description: Reports the work it was offered and marks it done, spending no tokens (a starting point for an executor).\n${common}exports: [describe, run]\n`;
    case 'budget-policy':
      return `${head}description: Approves the cheapest tier for any work, keeping the whole daily budget in reserve (a starting point for a budget policy).\n${common}exports: [assess]\n`;
    case 'phase-selector':
      return `${head}description: Works in the phase the last cycles used least (a starting point for a phase selector).\n${common}exports: [pick]\n`;
    case 'loop-step':
      return `${head}description: Adds a note to each cycle event, with the cycle's phase when an earlier step picked one (a starting point for a loop step).\n${common}exports: [run]\n# The step values it reads (an earlier step must produce each), uses when present, produces,\n# and the fields it adds to the cycle event (docs/writing-plugins.md, "Loop steps").\nloop_step:\n  reads: []\n  uses: [phase]\n  produces: []\n  payload: [${noteField(id)}]\n`;
    case 'gate-check':
      // A check reads the draft's snapshot (${draft}); the gate profile that lists it must allow that read too.
      return `${head}description: Fails when a text file of the draft still holds a TODO, FIXME or XXX marker (a starting point for a gate check).\n${SANDBOX_LINE}permissions:\n  read: ["\${draft}"]\nbindings: []\nlimits: { memoryMb: 32, cpuMs: 1000 }\nexports: [check]\ngate_check: { reads: [] }\n`;
  }
}

function mod(kind: ScaffoldKind, id: string): string {
  const contracts = '.';
  switch (kind) {
    case 'tool':
      return `/**\n * ${id}: a tool. Each export listed under tools: in plugin.yaml is called with one object\n * of named arguments (checked against its input_schema first) and returns any JSON value.\n */\nexport function greet(args: { name: string }): { greeting: string } {\n  return { greeting: \`hello, \${args.name}\` };\n}\n`;
    case 'executor':
      return `/** ${id}: an executor. describe(config) says whether sessions spend tokens; run(input) does the work. */\nimport type { ExecutorAnswer, ExecutorDescription, ExecutorInput } from '${contracts}/contract.ts';\n\nexport function describe(_config: Record<string, unknown> = {}): ExecutorDescription {\n  return { spends_tokens: false };\n}\n\nexport function run(input: ExecutorInput): ExecutorAnswer {\n  const titles = input.work.map((w) => w.title);\n  return { status: 'ok', last_message: \`offered \${titles.length} item(s): \${titles.join('; ')}\`, work_done: input.work.map((w) => w.key) };\n}\n`;
    case 'budget-policy':
      return `/** ${id}: a budget policy. assess(input) decides, before any spending, whether and how the work runs. */\nimport type { BudgetAssessInput, BudgetDecisionAnswer } from '${contracts}/contract.ts';\n\nexport function assess(input: BudgetAssessInput): BudgetDecisionAnswer {\n  const tokens = input.posture.tokens_remaining_24h;\n  return {\n    action: 'execute',\n    tier: 1,\n    tier_name: 'read/search existing context',\n    decision: \`tier 1 for \${input.work.length} item(s) in \${input.phase}\`,\n    uncertainty: 'whether existing context already answers the work',\n    alternatives: [],\n    expected_cost: { tokens: 0, cpu_seconds: 1, wall_seconds: 60 },\n    stop_condition: 'the work is answered from existing context, or the session ends',\n    reserve: { tokens, sessions: 0 },\n    expected_improvement: 0.1,\n    reason: 'the cheapest tier first',\n  };\n}\n`;
    case 'gate-check':
      return `/**
 * ${id}: a gate check. check(input) reads the draft's snapshot (input.draft.root, granted as
 * \${draft}) and answers passed, failed or not-applicable; what it cannot vouch for goes in
 * not_evaluated, which the evidence lists among the verdict's limitations.
 */
import type { GateCheckInput, GateCheckResult } from '${contracts}/contract.ts';

const MARKER = /\\b(TODO|FIXME|XXX)\\b/;
const TEXT = /\\.(md|txt|ts|mts|js|mjs|json|ya?ml)$/;
const MAX_BYTES = 256 * 1024;

/** Each line of one file that holds a marker, as "path:line" (pure, so its test needs no permission). */
export function findMarkers(file: string, text: string): string[] {
  return text.split('\\n').flatMap((line, i) => (MARKER.test(line) ? [\`\${file}:\${i + 1}\`] : []));
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const files = input.draft.files.filter((f) => f.type === 'file' && TEXT.test(f.path));
  const skipped = files.filter((f) => f.bytes > MAX_BYTES).map((f) => f.path);
  const read = files.filter((f) => f.bytes <= MAX_BYTES);
  const not_evaluated = skipped.length > 0 ? [\`files over \${MAX_BYTES} bytes were not read: \${skipped.join(', ')}\`] : [];
  if (read.length === 0) return { status: 'not-applicable', reason: 'the draft has no text file to read', output: { files: 0 }, not_evaluated };
  const found: string[] = [];
  for (const f of read) found.push(...findMarkers(f.path, await Deno.readTextFile(\`\${input.draft.root}/\${f.path}\`)));
  const output = { files: read.length, markers: found };
  if (found.length > 0) return { status: 'failed', reason: \`unfinished work is marked at \${found.slice(0, 5).join(', ')}\${found.length > 5 ? \` and \${found.length - 5} more\` : ''}\`, output, not_evaluated };
  return { status: 'passed', reason: \`no TODO, FIXME or XXX in \${read.length} text file(s)\`, output, not_evaluated };
}
`;
    case 'loop-step':
      return `/**
 * ${id}: a loop step. A harness lists it in its steps:; run(input) is called once per cycle with
 * the values its manifest reads and uses (input.values), and returns the values it produces,
 * the fields it adds to the cycle event, and the cycle's problems. Keep it a function of its
 * input: the cycle is recorded and replayed.
 */
import type { LoopStepInput, LoopStepResult } from '${contracts}/contract.ts';

export function run(input: LoopStepInput): LoopStepResult {
  const phase = typeof input.values.phase === 'string' ? input.values.phase : null;
  return { payload: { ${noteField(id)}: { cycle: input.cycle, hour_utc: new Date(input.now).getUTCHours(), phase } } };
}
`;
    case 'phase-selector':
      return `/** ${id}: a phase selector. pick(input) returns one of the profile's phases for this cycle. */\nimport type { PhaseAnswer, PhasePickInput } from '${contracts}/contract.ts';\n\nexport function pick(input: PhasePickInput): PhaseAnswer {\n  const used = new Map(input.phases.map((p) => [p, 0]));\n  for (const h of input.history) if (used.has(h.phase)) used.set(h.phase, used.get(h.phase)! + 1);\n  let best = input.phases[0]!;\n  for (const p of input.phases) if (used.get(p)! < used.get(best)!) best = p;\n  return { phase: best };\n}\n`;
  }
}

function test(kind: ScaffoldKind, id: string): string {
  const head = `// Run with Deno's own test runner: deno test --no-check ${'<this folder>'}\n// (runtimectl ships Deno as node_modules/.bin/deno). Plain asserts keep it free of imports.\nfunction assertEquals(actual: unknown, expected: unknown): void {\n  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(\`expected \${JSON.stringify(expected)}, got \${JSON.stringify(actual)}\`);\n}\n\n`;
  switch (kind) {
    case 'tool':
      return `${head}import { greet } from '../mod.ts';\n\nDeno.test('${id}: greet says hello', () => {\n  assertEquals(greet({ name: 'Ada' }), { greeting: 'hello, Ada' });\n});\n`;
    case 'executor':
      return `${head}import { describe, run } from '../mod.ts';\n\nDeno.test('${id}: spends nothing and marks the work done', () => {\n  assertEquals(describe().spends_tokens, false);\n  const work = [{ kind: 'packet', key: 'packet:1', title: 'Q', body: '' }] as const;\n  const result = run({ work: [...work] } as never);\n  assertEquals(result.status, 'ok');\n  assertEquals(result.work_done, ['packet:1']);\n});\n`;
    case 'budget-policy':
      return `${head}import { assess } from '../mod.ts';\n\nDeno.test('${id}: approves tier 1', () => {\n  const decision = assess({ persona_id: 'p', phase: 'science_patrol', work: [], executor: { plugin: 'executor.none', spends_tokens: false }, posture: { tokens_remaining_24h: 1000 } as never, history: [], config: {} });\n  assertEquals([decision.action, decision.tier], ['execute', 1]);\n});\n`;
    case 'gate-check':
      return `${head}import { findMarkers } from '../mod.ts';\n\nDeno.test('${id}: finds each marked line, and nothing in finished text', () => {\n  assertEquals(findMarkers('mod.ts', 'export const a = 1;\\n// TODO: handle b\\n'), ['mod.ts:2']);\n  assertEquals(findMarkers('SKILL.md', 'All done. Todos are fine.'), []);\n});\n`;
    case 'loop-step':
      return `${head}import { run } from '../mod.ts';\n\nDeno.test('${id}: notes the cycle, its UTC hour and the phase', () => {\n  const input = { step: '${id}', persona_id: 'p', runtime: 'agent-p', cycle: 2, now: Date.UTC(2026, 0, 1, 13), phases: ['science_patrol'], values: { phase: 'science_patrol' } };\n  assertEquals(run(input).payload, { ${noteField(id)}: { cycle: 2, hour_utc: 13, phase: 'science_patrol' } });\n});\n`;
    case 'phase-selector':
      return `${head}import { pick } from '../mod.ts';\n\nDeno.test('${id}: picks the phase used least', () => {\n  const phases = ['science_patrol', 'governance_patrol'];\n  assertEquals(pick({ persona_id: 'p', cycle: 3, phases, history: [{ cycle: 1, phase: 'science_patrol', outcome: 'idle' }] }).phase, 'governance_patrol');\n});\n`;
  }
}

function selectLine(kind: ScaffoldKind, id: string): string {
  switch (kind) {
    case 'tool':
      return `tools: [${id}]`;
    case 'executor':
      return `executor: { plugin: ${id} }`;
    case 'budget-policy':
      return `budget: { policy: ${id} }`;
    case 'phase-selector':
      return `phase: ${id}`;
    case 'gate-check':
      return `- { check: ${id.slice('gate-check.'.length)}, allow: { read: ["\${draft}"] } }`;
    case 'loop-step':
      return `steps: [${canonicalSteps().filter((step) => step !== RECORD_STEP).join(', ')}, ${id}, ${RECORD_STEP}]`;
  }
}

/** The cycle event field a scaffolded step adds: its name, as a field name. */
function noteField(id: string): string {
  return `${id.slice(PREFIX['loop-step'].length + 1).replace(/-/g, '_')}_note`;
}

/** The canonical harness's steps, which a new step is added to (its file is the one to copy). */
function canonicalSteps(): string[] {
  return new HarnessCatalog().get(CANONICAL_HARNESS).manifest.steps;
}

export function scaffoldPlugin(kind: string, name: string, parent: string): Scaffolded {
  if (!(SCAFFOLD_KINDS as readonly string[]).includes(kind)) {
    const why = kind === 'persistence' ? ': a persistence backend is a set of exports over storage bindings (copy plugins/persistence-jsonl-fs; features/persistence/README.md)' : '';
    throw kernelError('RTC_ERR_CLI_USAGE', `--kind ${kind}: plugins new writes ${SCAFFOLD_KINDS.join(', ')}${why}`);
  }
  const k = kind as ScaffoldKind;
  if (!NAME.test(name)) throw kernelError('RTC_ERR_CLI_USAGE', `${name}: a plugin name is lowercase letters, digits and "-", starting with a letter (it becomes the id ${PREFIX[k]}.<name> and the folder name)`);
  const dir = path.join(parent, `${PREFIX[k]}-${name}`);
  if (existsSync(dir)) throw kernelError('RTC_ERR_PLUGIN_SCAFFOLD', `${dir} already exists; nothing was written (pick another name or --dir)`, { details: { dir } });
  const id = `${PREFIX[k]}.${name}`;
  const contract = contractModule(k);
  const files: [string, string][] = [
    ['plugin.yaml', manifest(k, id, inRepo(dir, 'schemas/plugin-manifest.schema.json'))],
    ['mod.ts', mod(k, id)],
    ...(contract ? [['contract.ts', contract] as [string, string]] : []),
    [path.join('test', 'mod_test.ts'), test(k, id)],
  ];
  try {
    mkdirSync(path.join(dir, 'test'), { recursive: true });
    for (const [file, text] of files) writeFileSync(path.join(dir, file), text, { flag: 'wx' });
  } catch (error) {
    throw kernelError('RTC_ERR_PLUGIN_SCAFFOLD', `cannot write ${dir}: ${(error as Error).message.split('\n')[0]}`, { cause: error, details: { dir } });
  }
  return { id, dir, files: files.map(([f]) => f), select: selectLine(k, id), selectIn: k === 'gate-check' ? 'gate profile' : k === 'loop-step' ? 'harness' : 'persona profile' };
}
