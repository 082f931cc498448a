/**
 * The layering checker shared by test/kernel/layering.test.ts and `npm run layering`: reads every
 * source file under the rules' roots (layering-rules.ts), resolves each import
 * (layering-imports.ts), and reports each edge that breaks a rule, the feature graph's cycles
 * (Tarjan's strongly connected components), and the folder-level graph as text.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { findImports, type FoundImport, type ImportForm } from './layering-imports.ts';
import {
  CHECKED_ROOTS,
  FEATURE_MAY_IMPORT,
  FOLDER_RULES,
  ISOLATE_SAFE_PACKAGES,
  ISOLATE_SAFE_ROOT,
  KERNEL_PUBLIC_SURFACE,
  PLUGIN_TYPE_SURFACE,
  SOURCE_ROOTS,
} from './layering-rules.ts';

export type RuleName = 'kernel' | 'sandboxes' | 'plugins' | 'features' | 'feature-cycle' | 'test-import' | 'unresolved' | 'computed';

export const RULE_TEXT: Record<RuleName, string> = {
  kernel: 'kernel/ imports only kernel/',
  sandboxes: "sandboxes/ imports only sandboxes/ and the kernel's public surface",
  plugins: 'plugins/ imports only plugins/, contract types and isolate-safe contract modules',
  features: 'features/ imports only kernel/, sandboxes/, features/ and plugins/*/model/',
  'feature-cycle': 'no cycle between features',
  'test-import': 'no source file imports a test file',
  unresolved: 'a first-party import names no file',
  computed: 'a computed import() or require() cannot be checked',
};

/** One import edge between two files (several imports of one target from one file are one edge). */
export interface Edge {
  from: string;
  to: string;
  form: ImportForm;
  /** Every import of `to` in `from` is type-only. */
  typeOnly: boolean;
  line: number;
  status: FoundImport['status'];
}

export interface Offence {
  from: string;
  to: string;
  rule: RuleName;
  line: number;
  detail: string;
}

export interface LayeringReport {
  files: number;
  edges: Edge[];
  offences: Offence[];
  /**
   * Each strongly connected component of the feature graph with more than one feature, and the
   * shortest cycle through each of its features (duplicates dropped): the cycles to break.
   */
  cycles: { members: string[]; cycles: string[][] }[];
  isolateSafe: Set<string>;
}

const CODE_FILE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;

/** Test code: a `test`/`tests`/`fixtures` folder anywhere in the path, or a `*.test.*` file. */
export function isTestPath(rel: string): boolean {
  const parts = rel.split(/[\\/]/);
  return parts.slice(0, -1).some((p) => p === 'test' || p === 'tests' || p === '__tests__' || p === 'fixtures') || /\.(test|spec)\.[cm]?[jt]sx?$/.test(parts.at(-1)!);
}

/** `exact/file.ts`, `folder/**`, and `*` for one path segment. */
export function matches(rel: string, pattern: string): boolean {
  const re = pattern
    .split('/')
    .map((seg) => (seg === '**' ? '.*' : seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+')))
    .join('/');
  return new RegExp(`^${re.replace('/.*', '(/.*)?')}$`).test(rel);
}

const matchesAny = (rel: string, patterns: readonly string[]) => patterns.some((p) => matches(rel, p));
const top = (rel: string) => rel.split('/')[0]!;

/** Feature folders are graph nodes of their own (`features/ledger`); other folders by top. */
export function folderOf(rel: string): string {
  const parts = rel.split('/');
  return (parts[0] === 'features' || parts[0] === 'plugins') && parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && CODE_FILE.test(entry.name) && !isTestPath(rel)) out.push(rel);
    }
  };
  for (const dir of SOURCE_ROOTS) {
    try {
      walk(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  return out.sort();
}

export function scanEdges(root: string, files = sourceFiles(root)): Edge[] {
  const edges = new Map<string, Edge>();
  for (const from of files) {
    for (const found of findImports(path.join(root, from), root)) {
      const key = `${from}\0${found.to}`;
      const seen = edges.get(key);
      if (seen) seen.typeOnly &&= found.typeOnly;
      else edges.set(key, { from, ...found, to: found.to.split(path.sep).join('/') });
    }
  }
  return [...edges.values()];
}

/** Contract modules whose value imports are only the allowed packages and each other (a greatest fixpoint). */
function isolateSafeModules(files: string[], edges: Edge[]): Set<string> {
  const byFile = new Map<string, Edge[]>();
  for (const e of edges) if (matches(e.from, ISOLATE_SAFE_ROOT)) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);
  const safe = new Set(files.filter((f) => matches(f, ISOLATE_SAFE_ROOT)));
  let changed = true;
  while (changed) {
    changed = false;
    for (const file of [...safe]) {
      const ok = (byFile.get(file) ?? []).every(
        (e) => e.typeOnly || (e.status === 'package' ? ISOLATE_SAFE_PACKAGES.includes(e.to) : e.status === 'resolved' && safe.has(e.to)),
      );
      if (!ok) {
        safe.delete(file);
        changed = true;
      }
    }
  }
  return safe;
}

function ruleBroken(e: Edge, safe: Set<string>): RuleName | undefined {
  if (e.status === 'package') return undefined;
  if (e.status === 'unresolved') return 'unresolved';
  const home = top(e.from);
  if (e.status === 'computed') return (CHECKED_ROOTS as readonly string[]).includes(home) ? 'computed' : undefined;
  if (isTestPath(e.to) || top(e.to) === 'test') return 'test-import';
  switch (home) {
    case 'kernel':
      return top(e.to) === 'kernel' ? undefined : 'kernel';
    case 'sandboxes':
      return top(e.to) === 'sandboxes' || matchesAny(e.to, KERNEL_PUBLIC_SURFACE) ? undefined : 'sandboxes';
    case 'plugins':
      if (top(e.to) === 'plugins') return undefined;
      if (e.typeOnly && matchesAny(e.to, PLUGIN_TYPE_SURFACE)) return undefined;
      return safe.has(e.to) ? undefined : 'plugins';
    case 'features':
      return matchesAny(e.to, FEATURE_MAY_IMPORT) ? undefined : 'features';
    default:
      return undefined;
  }
}

/** Tarjan's strongly connected components of a directed graph given as adjacency sets. */
export function stronglyConnected(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

/** The shortest cycle from `start` back to itself inside one component (breadth first). */
function shortestCycle(graph: Map<string, Set<string>>, members: Set<string>, start: string): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const cycle = [start];
        for (let u: string | undefined = v; u !== start && u !== undefined; u = parent.get(u)) cycle.splice(1, 0, u);
        return [...cycle, start];
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Drops cycles that are rotations of one already kept. */
function distinctCycles(cycles: string[][]): string[][] {
  const seen = new Set<string>();
  return cycles.filter((c) => {
    const ring = c.slice(0, -1);
    const start = ring.indexOf([...ring].sort()[0]!);
    const key = [...ring.slice(start), ...ring.slice(0, start)].join(' ');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function checkLayering(root: string, files = sourceFiles(root)): LayeringReport {
  const edges = scanEdges(root, files);
  const safe = isolateSafeModules(files, edges);
  const offences: Offence[] = [];
  for (const e of edges) {
    const rule = ruleBroken(e, safe);
    if (rule) offences.push({ from: e.from, to: e.to, rule, line: e.line, detail: describe(e) });
  }
  const featureGraph = new Map<string, Set<string>>();
  const featureEdges = edges.filter((e) => e.status === 'resolved' && top(e.from) === 'features' && top(e.to) === 'features' && folderOf(e.from) !== folderOf(e.to));
  for (const e of featureEdges) {
    const from = folderOf(e.from);
    if (!featureGraph.has(from)) featureGraph.set(from, new Set());
    featureGraph.get(from)!.add(folderOf(e.to));
  }
  const cycles = stronglyConnected(featureGraph)
    .filter((c) => c.length > 1)
    .map((members) => ({ members, cycles: distinctCycles(members.map((m) => shortestCycle(featureGraph, new Set(members), m))) }));
  const componentOf = new Map(cycles.flatMap((c, i) => c.members.map((m) => [m, i] as const)));
  for (const e of featureEdges) {
    const a = componentOf.get(folderOf(e.from));
    if (a !== undefined && a === componentOf.get(folderOf(e.to))) offences.push({ from: e.from, to: e.to, rule: 'feature-cycle', line: e.line, detail: describe(e) });
  }
  return { files: files.length, edges, offences, cycles, isolateSafe: safe };
}

function describe(e: Edge): string {
  if (e.status === 'computed') return `${e.from}:${e.line} ${e.form === 'dynamic' ? 'import()' : 'require()'} of a computed specifier`;
  const how = e.typeOnly ? 'type-only import' : e.form === 'static' ? 'import' : `${e.form} import`;
  return `${e.from}:${e.line} ${how} of ${e.to}`;
}

/** One line per offence, naming the rule, the file and line, and the form of the import. */
export function formatOffence(o: Offence): string {
  return `${o.detail}: breaks "${RULE_TEXT[o.rule]}"`;
}

/** One cycle, each hop with the first import that makes it: `a → b (a/x.ts:3 → b/y.ts), b → a (…)`. */
export function formatCycle(cycle: string[], edges: Edge[]): string {
  return cycle
    .slice(1)
    .map((to, i) => {
      const from = cycle[i]!;
      const example = edges.find((e) => e.status === 'resolved' && folderOf(e.from) === from && folderOf(e.to) === to);
      return `${from} → ${to} (${example ? `${example.from}:${example.line} → ${example.to}` : '?'})`;
    })
    .join(', ');
}

/** A component and its cycles, one per line. */
export function formatComponent(c: LayeringReport['cycles'][number], edges: Edge[]): string[] {
  return [`features in a cycle: ${c.members.join(', ')}`, ...c.cycles.map((cycle) => `  cycle: ${formatCycle(cycle, edges)}`)];
}

/** The folder-level graph: edges between top folders (features and plugins one node each), value and type-only counts. */
export function renderGraph(report: LayeringReport): string {
  const counts = new Map<string, { value: number; type: number; offences: number }>();
  const offending = new Set(report.offences.map((o) => `${o.from}\0${o.to}`));
  for (const e of report.edges) {
    if (e.status !== 'resolved') continue;
    const a = top(e.from);
    const b = top(e.to);
    if (a === b) continue;
    const key = `${a} → ${b}`;
    const c = counts.get(key) ?? { value: 0, type: 0, offences: 0 };
    if (e.typeOnly) c.type++;
    else c.value++;
    if (offending.has(`${e.from}\0${e.to}`)) c.offences++;
    counts.set(key, c);
  }
  const lines = [`folder graph (${report.files} source files; import edges between folders, tests excluded):`];
  for (const [key, c] of [...counts].sort(([a], [b]) => a.localeCompare(b)))
    lines.push(`  ${key.padEnd(24)} ${String(c.value).padStart(4)} value, ${String(c.type).padStart(3)} type-only${c.offences ? `   (${c.offences} against the rules)` : ''}`);
  const features = new Map<string, Set<string>>();
  for (const e of report.edges)
    if (e.status === 'resolved' && top(e.from) === 'features' && top(e.to) === 'features' && folderOf(e.from) !== folderOf(e.to)) {
      const from = folderOf(e.from).slice('features/'.length);
      if (!features.has(from)) features.set(from, new Set());
      features.get(from)!.add(folderOf(e.to).slice('features/'.length));
    }
  lines.push('feature graph:');
  for (const [from, tos] of [...features].sort(([a], [b]) => a.localeCompare(b))) lines.push(`  ${from} → ${[...tos].sort().join(', ')}`);
  lines.push(report.cycles.length === 0 ? 'feature cycles: none' : `feature cycles: ${report.cycles.length} strongly connected component(s)`);
  for (const c of report.cycles) lines.push(...formatComponent(c, report.edges).map((l) => `  ${l}`));
  return lines.join('\n');
}

/** The rules, one line per folder (docs/architecture.md quotes these). */
export function renderRules(): string {
  return FOLDER_RULES.map((r) => `- \`${r.folder}\` ${r.rule}`).join('\n');
}

/** The kernel's public surface, one pattern a line (kernel/README.md quotes it). */
export function renderSurface(): string {
  return KERNEL_PUBLIC_SURFACE.map((p) => `- \`${p}\``).join('\n');
}

/** The copies of the rules in the docs: file, marker name, and the text between its markers. */
export const RULE_QUOTES = [
  { file: 'kernel/README.md', marker: 'public-surface', render: renderSurface },
  { file: 'docs/architecture.md', marker: 'import-rules', render: renderRules },
] as const;

/** The text between `<!-- NAME:start ... -->` and `<!-- NAME:end -->`, or undefined. */
export function quoted(text: string, marker: string): string | undefined {
  return new RegExp(`<!-- ${marker}:start[^>]*-->\\n([\\s\\S]*?)\\n<!-- ${marker}:end -->`).exec(text)?.[1];
}

/** `text` with the block between the markers replaced by `body`. */
export function withQuote(text: string, marker: string, body: string): string {
  if (quoted(text, marker) === undefined) throw new Error(`no <!-- ${marker}:start --> ... <!-- ${marker}:end --> markers`);
  return text.replace(new RegExp(`(<!-- ${marker}:start[^>]*-->\\n)[\\s\\S]*?(\\n<!-- ${marker}:end -->)`), (_m, a: string, b: string) => `${a}${body}${b}`);
}
