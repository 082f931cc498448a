/**
 * Harness manifests (`policies/harnesses/<id>.yaml`): which steps one loop cycle runs, in
 * order, and what a persona on this harness gets when its profile leaves a slot empty. The
 * canonical `continuous-science-loop` and the compatibility targets (minimax, operon,
 * rosalind, codex, claude) are manifests over the registered steps and step plugins; a
 * harness may drop, reorder or add a step, as long as each step's inputs are produced by an
 * earlier one (checked at start). Nothing in the kernel knows their names.
 *
 * `boundary:` lists the steps of the cycle boundary, run before the cycle's trace opens:
 * `review` (the driver's own: accepted proposals take effect). Without the field a harness
 * has the review boundary; `boundary: []` drops it (proposals are still queued, never applied).
 *
 * A profile names its harness (`harness:`) by id, or by a file relative to the profile
 * (`./loops/mine.yaml`: an operator's composition, outside the checkout); without one, the
 * harness whose `runtimes` patterns match the profile's `runtime` is used (exactly one must match).
 *
 * Steps are implemented by features and registered by name (steps.ts); a harness naming a
 * step nobody registered is refused at start with its file and field, never a failed cycle.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { kernelError } from '../errors.ts';
import { readManifestFile } from '../manifest/load.ts';
import { PROJECT_ROOT } from '../version.ts';
import { shownPath } from '../shown-path.ts';
import { PLAIN_NAME_PATTERN, PLUGIN_ID_PATTERN } from '../ids.ts';
import { HARNESS_FILE_PATTERN } from '../personas/profile-schema.ts';

export const HARNESSES_DIR = path.join(PROJECT_ROOT, 'policies', 'harnesses');
/** The driver's own last step: the trace line, the cycle event, then what steps left for after it. */
export const RECORD_STEP = 'record';
/** The driver's own boundary step: the review queue's accepted proposals take effect (features/persona/steps/review-step.ts). */
export const REVIEW_STEP = 'review';

/** A feature's step (`decide`) or a step plugin's id (`step.phase-least-recent`). */
const stepName = z.string().regex(/^[a-z][a-z0-9_-]{0,62}(\.[a-z][a-z0-9-]*)*$/, 'a step name, or a step plugin\'s id (step.<name>)');

function noDuplicates(list: readonly string[], field: string, ctx: z.RefinementCtx): void {
  list.forEach((step, i) => {
    if (list.indexOf(step) !== i) ctx.addIssue({ code: 'custom', path: [field, i], message: `step "${step}" is listed twice` });
  });
}

const pluginId = z.string().regex(PLUGIN_ID_PATTERN, 'a dotted plugin id such as executor.codex');

export const harnessManifestSchema = z
  .strictObject({
    $schema: z.string().optional(),
    id: z.string().regex(PLAIN_NAME_PATTERN, 'lowercase letters, digits, "-" and "_" (the file name without .yaml)'),
    description: z.string().min(1).max(1000),
    loop: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/).default('continuous_science_loop').describe('the loop name cycle events carry'),
    runtime_kind: z.enum(['canonical', 'compatibility_harness']).describe('canonical: agent-<persona> deployments; compatibility_harness: a provider target started explicitly'),
    runtimes: z
      .array(z.string().regex(/^[a-z0-9*][a-z0-9_*-]{0,62}$/, 'a runtime name, or a pattern with * (agent-*)'))
      .default([])
      .describe('runtime targets this harness serves when a profile names no harness (patterns with *)'),
    boundary: z
      .array(stepName)
      .default([REVIEW_STEP])
      .describe(`the cycle boundary's steps, run before the cycle's trace opens (default: ["${REVIEW_STEP}"], accepted proposals take effect; [] drops it)`),
    steps: z
      .array(stepName)
      .min(1)
      .describe(`the cycle's steps in order: registered steps and step plugins (step.<name>); each step's inputs come from an earlier one; the last is "${RECORD_STEP}"`),
    defaults: z
      .strictObject({
        executor: z
          .strictObject({
            plugin: pluginId.describe('the executor when the profile names none'),
            enabled: z.boolean().describe('whether it runs when the profile does not say'),
          })
          .optional(),
      })
      .default({})
      .describe('slot defaults for personas on this harness (the profile, then the environment, override them)'),
  })
  .superRefine((h, ctx) => {
    const last = h.steps.length - 1;
    h.steps.forEach((step, i) => {
      if (step === RECORD_STEP && i !== last) ctx.addIssue({ code: 'custom', path: ['steps', i], message: `"${RECORD_STEP}" is the driver's last step; it cannot come before others` });
      if (step === REVIEW_STEP) ctx.addIssue({ code: 'custom', path: ['steps', i], message: `"${REVIEW_STEP}" is a boundary step: list it under boundary:` });
    });
    noDuplicates(h.steps, 'steps', ctx);
    noDuplicates(h.boundary, 'boundary', ctx);
    h.boundary.forEach((step, i) => {
      if (step !== REVIEW_STEP) ctx.addIssue({ code: 'custom', path: ['boundary', i], message: `unknown boundary step "${step}" (boundary steps: ${REVIEW_STEP})` });
    });
    if (h.steps[last] !== RECORD_STEP) ctx.addIssue({ code: 'custom', path: ['steps', last], message: `the last step must be "${RECORD_STEP}" (the trace line and the cycle event)` });
  });

export type HarnessManifest = z.output<typeof harnessManifestSchema>;

export interface LoadedHarness {
  manifest: HarnessManifest;
  /** absolute path of the YAML file */
  file: string;
}

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
