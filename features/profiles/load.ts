/**
 * Finds and reads persona profiles. `--persona` takes an id (`jerome`, looked up as
 * `policies/personas/jerome.yaml`) or a file path; a profile found by id must carry that
 * id, so a renamed file cannot run under someone else's state directory.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isKernelError, kernelError, type KernelError } from '../../kernel/errors.ts';
import { didYouMean } from './suggest.ts';
import { looksLikeFile, PERSONAS_DIR } from './persona-ref.ts';
import { parseYaml, readManifestSource, validateManifest } from '../../kernel/manifest/load.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { personaProfileSchema, type LoadedPersona } from '../../kernel/personas/profile-schema.ts';

export { looksLikeFile, PERSONAS_DIR };

export function readPersonaFile(file: string, displayRoot = process.cwd()): LoadedPersona {
  // Read once (capped, regular files only): the profile, its digest and the text the trace keeps are the same bytes.
  const where = shownPath(file, displayRoot);
  const { bytes, text } = readManifestSource(file, where);
  const profile = validateManifest(personaProfileSchema, parseYaml(text, where), where);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  return { profile, file: path.resolve(file), digest, text: bytes.toString('utf8') };
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
    throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `--persona ${ref}${didYouMean(ref, known)}: no profile ${ref}.yaml in ${shownPath(dir, cwd)} (have: ${known.join(', ') || 'none'})`, {
      details: { persona: ref, known },
    });
  }
  const loaded = readPersonaFile(file, cwd);
  if (loaded.profile.id !== ref) {
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${shownPath(file, cwd)}: id: must equal the file name "${ref}" (found "${loaded.profile.id}")`);
  }
  return loaded;
}

/** Resolves several refs and refuses two with the same id (they would share one state directory). */
export function resolvePersonas(refs: readonly string[], options: { cwd?: string; dir?: string } = {}): LoadedPersona[] {
  const { personas, failures } = loadPersonas(refs, options);
  if (failures.length > 0) throw failures[0]!.error;
  return personas;
}

/** A `--persona` ref that could not be loaded, with why. */
export interface PersonaLoadFailure {
  ref: string;
  error: KernelError;
}

/**
 * Every ref loaded, or its failure: one bad profile does not hide the next one's problems,
 * and the good ones can start beside it (as `run` does with a persona its start check refuses).
 * Two refs with one id: the second is a failure (they would share one state directory).
 */
export function loadPersonas(refs: readonly string[], options: { cwd?: string; dir?: string } = {}): { personas: LoadedPersona[]; failures: PersonaLoadFailure[] } {
  const personas: LoadedPersona[] = [];
  const failures: PersonaLoadFailure[] = [];
  for (const ref of refs) {
    let loaded: LoadedPersona;
    try {
      loaded = resolvePersona(ref, options);
    } catch (error) {
      if (!isKernelError(error) || error.internal) throw error;
      failures.push({ ref, error });
      continue;
    }
    const twin = personas.find((p) => p.profile.id === loaded.profile.id);
    if (twin) {
      failures.push({ ref, error: kernelError('RTC_ERR_PERSONA_DUPLICATE', `--persona ${ref}: persona id "${loaded.profile.id}" is already given (${path.basename(twin.file)}); one process runs each persona once`) });
      continue;
    }
    personas.push(loaded);
  }
  return { personas, failures };
}
