/**
 * Finds and reads persona profiles. `--persona` takes an id (`jerome`, looked up as
 * `policies/personas/jerome.yaml`) or a file path; a profile found by id must carry that
 * id, so a renamed file cannot run under someone else's state directory.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../errors.ts';
import { readManifestFile } from '../manifest/load.ts';
import { PROJECT_ROOT } from '../version.ts';
import { personaProfileSchema, type PersonaProfile } from './profile-schema.ts';

export const PERSONAS_DIR = path.join(PROJECT_ROOT, 'policies', 'personas');

export interface LoadedPersona {
  profile: PersonaProfile;
  /** Absolute path of the YAML file. */
  file: string;
  /** sha256 of the file's bytes: which profile text a cycle ran under. */
  digest: string;
}

function looksLikeFile(ref: string): boolean {
  return ref.includes('/') || ref.includes(path.sep) || /\.(ya?ml|json)$/.test(ref);
}

export function readPersonaFile(file: string, displayRoot = PROJECT_ROOT): LoadedPersona {
  const profile = readManifestFile(personaProfileSchema, file, displayRoot);
  const digest = `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
  return { profile, file: path.resolve(file), digest };
}

/** Every profile id in a folder (file stems), sorted. */
export function listPersonaIds(dir = PERSONAS_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** Resolves `--persona ID_OR_FILE`: a path (relative to cwd) or an id in `dir`. */
export function resolvePersona(ref: string, options: { cwd?: string; dir?: string } = {}): LoadedPersona {
  const cwd = options.cwd ?? process.cwd();
  const dir = options.dir ?? PERSONAS_DIR;
  if (looksLikeFile(ref)) {
    const file = path.resolve(cwd, ref);
    if (!existsSync(file)) throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `--persona ${ref}: no such file`, { details: { persona: ref } });
    return readPersonaFile(file, cwd);
  }
  const file = path.join(dir, `${ref}.yaml`);
  if (!existsSync(file)) {
    const known = listPersonaIds(dir);
    throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `--persona ${ref}: no profile ${ref}.yaml in ${path.relative(cwd, dir) || dir} (have: ${known.join(', ') || 'none'})`, {
      details: { persona: ref, known },
    });
  }
  const loaded = readPersonaFile(file);
  if (loaded.profile.id !== ref) {
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${path.relative(PROJECT_ROOT, file)}: id: must equal the file name "${ref}" (found "${loaded.profile.id}")`);
  }
  return loaded;
}

/** Resolves several refs and refuses two with the same id (they would share one state directory). */
export function resolvePersonas(refs: readonly string[], options: { cwd?: string; dir?: string } = {}): LoadedPersona[] {
  const out: LoadedPersona[] = [];
  for (const ref of refs) {
    const loaded = resolvePersona(ref, options);
    const twin = out.find((p) => p.profile.id === loaded.profile.id);
    if (twin) {
      throw kernelError('RTC_ERR_PERSONA_DUPLICATE', `--persona ${ref}: persona id "${loaded.profile.id}" is already given (${path.basename(twin.file)}); one process runs each persona once`);
    }
    out.push(loaded);
  }
  return out;
}
