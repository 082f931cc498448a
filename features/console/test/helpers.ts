/**
 * Set-up for the console's tests: a state directory with real personas that ran real cycles
 * (the loop, the appender, the history), a memory-promotion proposal resting on a real gate
 * evidence package, and HTTP helpers against a real listening server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { resolvePersonas } from '../../profiles/load.ts';
import { ReviewQueue } from '../../review-queue/index.ts';
import { budgeted, packet, run, tempDir } from '../../science-loop/test/helpers.ts';
import { DRAFTS, gate } from '../../gate/test/helpers.ts';
import { persistenceProvider } from '../../persistence/provider.ts';

export { run, tempDir, packet, budgeted };

export interface Fleet {
  dir: string;
  stateDir: string;
  /** the profiles that ran: `ada` (codex, spends tokens) and `jerome` (orchestra) */
  personas: ReturnType<typeof resolvePersonas>;
}

/** Two personas with one cycle each, both executed: ada with the fake codex (1500 tokens), jerome with orchestra (ledger tasks). */
export async function fleet(): Promise<Fleet> {
  const dir = tempDir('rtc-console-');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Does X cause Y?\n\nUse the pilot data.\n');
  packet(stateDir, 'jerome', 'q.md', '# Which assay separates A from B?\n');
  const personas = [budgeted(dir, 'ada', 'executor.codex'), ...resolvePersonas(['jerome'])];
  await run(personas, { stateDir });
  return { dir, stateDir, personas };
}

let gatePackage: Promise<string> | undefined;

/** A real gate evidence package (made once per test file), copied under `into`. */
export async function evidencePackage(into: string): Promise<{ manifest: string; digest: string }> {
  gatePackage ??= gate('community-draft', path.join(DRAFTS, 'malformed-skill')).then((r) => r.out);
  const pkg = path.join(into, 'evidence-pkg');
  fs.cpSync(await gatePackage, pkg, { recursive: true, verbatimSymlinks: true });
  const manifest = path.join(pkg, 'manifest.json');
  return { manifest, digest: `sha256:${createHash('sha256').update(fs.readFileSync(manifest)).digest('hex')}` };
}

/** Queues a memory promotion on `persona`, resting on the evidence package; its id. */
export async function propose(stateDir: string, persona: string, text: string, nowMs = Date.now()): Promise<string> {
  const dir = path.join(stateDir, persona);
  const evidence = await evidencePackage(dir);
  const queue = await ReviewQueue.open(dir, persistenceProvider, {});
  try {
    const out = queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'evidence-pkg/manifest.json', digest: evidence.digest }], text }, { now: nowMs });
    if (out.status !== 'queued') throw new Error(`not queued: ${JSON.stringify(out)}`);
    return out.proposal.id;
  } finally {
    await queue.close();
  }
}

export interface Reply {
  status: number;
  text: string;
  headers: Headers;
}

/** A request to the console, no redirects followed (a decision answers 303). */
export async function request(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Logs in with the access token; the session cookie. */
export async function login(loginUrl: string): Promise<string> {
  const res = await request(loginUrl);
  if (res.status !== 303) throw new Error(`login answered ${res.status}: ${res.text}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

export function csrfOf(html: string): string | undefined {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1];
}

/** Posts a decision form as the console's own page would. */
export function decide(base: string, id: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return request(`${base}/proposal/${id}/decide`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}
