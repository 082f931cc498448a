/**
 * The harness catalog: reads the harness manifests (`policies/harnesses/<id>.yaml`, their
 * contract is kernel/loop/harness.ts) from disk and picks the one a profile runs on.
 *
 * A profile names its harness (`harness:`) by id, or by a file relative to the profile
 * (`./loops/mine.yaml`: an operator's composition, outside the checkout); without one, the
 * harness whose `runtimes` patterns match the profile's `runtime` is used (exactly one must match).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { HARNESS_FILE_PATTERN } from '../../kernel/personas/profile-schema.ts';
import { harnessManifestSchema, type LoadedHarness } from '../../kernel/loop/harness.ts';

export const HARNESSES_DIR = path.join(PROJECT_ROOT, 'policies', 'harnesses');

function displayFile(file: string): string {
  return shownPath(file);
}

/** The harness manifests of a folder, read once. */
export class HarnessCatalog {
  readonly dir: string;
  readonly #byFile = new Map<string, LoadedHarness>();

  constructor(dir = HARNESSES_DIR) {
    this.dir = dir;
  }

  /** Every harness id in the folder (file stems), sorted. */
  ids(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => f.slice(0, -'.yaml'.length))
      .sort();
  }

  /** Harness `id` (policies/harnesses/<id>.yaml), validated; its id must equal the file name. */
  get(id: string): LoadedHarness {
    const file = path.join(this.dir, `${id}.yaml`);
    if (!this.#byFile.has(file) && !existsSync(file)) {
      throw kernelError('RTC_ERR_MANIFEST_NOT_FOUND', `no harness "${id}" (${displayFile(file)}); harnesses: ${this.ids().join(', ') || 'none'}`, { details: { harness: id } });
    }
    return this.#load(file);
  }

  /**
   * A harness file a profile names relative to itself (`harness: ./loops/mine.yaml`): an
   * operator's own composition of steps and step plugins, kept beside the profile rather than
   * in the checkout. The same schema and the same rule (its id is the file's name).
   */
  fromFile(relative: string, profileFile: string): LoadedHarness {
    const file = path.resolve(path.dirname(profileFile), relative);
    if (!this.#byFile.has(file) && !existsSync(file)) {
      throw kernelError('RTC_ERR_MANIFEST_NOT_FOUND', `no harness file ${displayFile(file)} (named relative to ${displayFile(profileFile)})`, { details: { harness: relative } });
    }
    return this.#load(file);
  }

  #load(file: string): LoadedHarness {
    const known = this.#byFile.get(file);
    if (known) return known;
    const id = path.basename(file, '.yaml');
    const manifest = readManifestFile(harnessManifestSchema, file);
    if (manifest.id !== id) throw kernelError('RTC_ERR_MANIFEST_INVALID', `${displayFile(file)}: id: must equal the file name "${id}" (found "${manifest.id}")`, { details: { file: displayFile(file), field: 'id' } });
    const loaded = { manifest, file };
    this.#byFile.set(file, loaded);
    return loaded;
  }

  /**
   * The harness a profile runs on: the one it names (an id, or a file relative to the profile's
   * own file), else the one whose `runtimes` match its runtime. None or several matching is an error naming the profile's field.
   */
  forProfile(profile: { harness?: string | undefined; runtime: string }, profileFile?: string): LoadedHarness {
    if (profile.harness !== undefined && HARNESS_FILE_PATTERN.test(profile.harness)) {
      if (profileFile === undefined) throw kernelError('RTC_ERR_MANIFEST_INVALID', `harness: ${profile.harness} is a file named relative to the profile, and this profile was not read from a file`, { details: { field: 'harness' } });
      return this.fromFile(profile.harness, profileFile);
    }
    if (profile.harness !== undefined) return this.get(profile.harness);
    const matching = this.ids()
      .map((id) => this.get(id))
      .filter((h) => h.manifest.runtimes.some((pattern) => runtimeMatches(pattern, profile.runtime)));
    if (matching.length === 1) return matching[0]!;
    if (matching.length === 0) {
      throw kernelError('RTC_ERR_MANIFEST_INVALID', `harness: none given, and no harness serves runtime "${profile.runtime}" (harnesses: ${this.ids().join(', ') || 'none'}); name one with harness:`, { details: { field: 'harness' } });
    }
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `harness: none given, and runtime "${profile.runtime}" matches several (${matching.map((h) => h.manifest.id).join(', ')}); name one with harness:`, { details: { field: 'harness' } });
  }

  /** Where a harness's file is, for messages. */
  display(harness: LoadedHarness): string {
    return displayFile(harness.file);
  }
}

/** `agent-*` matches `agent-jerome`; a pattern without `*` matches only itself. */
export function runtimeMatches(pattern: string, runtime: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&')).join('.*')}$`);
  return re.test(runtime);
}
