/** Shared set-up for the history tests: an idle persona run for days on a pinned clock, on either backend. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fakeTime, profile, run, tempDir } from '../../science-loop/test/helpers.ts';
import { writePersistenceConfig } from '../../persistence/state/persistence-config.ts';
import type { LoadedPersona } from '../../../kernel/personas/profile-schema.ts';
import type { PersonaRun } from '../../science-loop/run-personas.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';
import { openBackend } from '../../persistence/open.ts';

export const BACKENDS = ['jsonl-fs', 'sqlite'] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface Persona {
  dir: string;
  stateDir: string;
  personaDir: string;
  persona: LoadedPersona;
  time: ReturnType<typeof fakeTime>;
  /** runs `cycles` cycles, `everySeconds` apart on the pinned clock */
  cycles(cycles: number, everySeconds?: number): Promise<PersonaRun>;
}

/** An idle persona (executor none) on `backend`; `history` is written as its history.yaml when given. */
export function idlePersona(backend: BackendName, history?: string): Persona {
  const dir = tempDir('rtc-history-');
  const stateDir = path.join(dir, 'state');
  const persona = profile(dir, 'ada', 'runtime: agent-ada\nexecutor: { plugin: executor.none }\n');
  const personaDir = path.join(stateDir, 'ada');
  fs.mkdirSync(personaDir, { recursive: true });
  if (backend !== 'jsonl-fs') writePersistenceConfig(personaDir, backend);
  if (history !== undefined) fs.writeFileSync(path.join(personaDir, 'history.yaml'), history);
  const time = fakeTime();
  return {
    dir,
    stateDir,
    personaDir,
    persona,
    time,
    async cycles(cycles, everySeconds = 3600) {
      const [result] = await run([persona], { stateDir, clock: time.clock, sleep: time.sleep, cycles, everySeconds });
      // the run's last wait is not slept: move the clock on as a real gap between runs would
      time.advance(everySeconds * 1000);
      return result!;
    },
  };
}

/** sha256 of every file under `dir` (relative path → digest): "nothing was changed" is this map unchanged. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile()) continue;
    // sqlite may create its -wal/-shm sidecars for a handle that only reads
    if (/(persistence|events)\.db-(wal|shm)$/.test(rel)) continue;
    // the writer lock (features/persistence/state/writer-lock.ts) is taken by every writer, refused or not: it is no state
    if (/(^|\/)writer\.lock(\.json)?(-\w+)?$/.test(rel)) continue;
    out.set(rel, createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  }
  return out;
}

/** Every event of the persona, every segment, read-only through its configured backend. */
export async function readAllEvents(personaDir: string): Promise<EventEnvelope[]> {
  const backend = await openBackend(personaDir, undefined, { readonly: true });
  try {
    return [...backend.events.read()];
  } finally {
    await backend.close();
  }
}
