/**
 * The skill catalog, with the progressive disclosure of the Agent Skills format: at load
 * only each skill's front matter is kept (name, description, ...), the body is read when a
 * skill is activated, and the files it refers to are read one at a time on demand.
 *
 * A root is a folder of skill folders (`<root>/<name>/SKILL.md`) in one scope. A malformed
 * skill is refused on its own with a one-line reason naming the file and the field; every
 * other skill still loads.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { FIELD_FILE, parseSkillFile } from './parse-skill-file.ts';
import { DEFAULT_REFERENCE_MAX_BYTES, listSkillReferences, readSkillReference } from './read-reference.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

export type SkillScope = 'shared' | 'persona';

export interface SkillRoot {
  dir: string;
  scope: SkillScope;
  /** Required for scope `persona`: the persona the skills belong to. */
  persona?: string;
}

/** What the catalog keeps of one skill: its front matter and where it lives, never its body. */
export interface SkillMeta {
  /** `shared/<name>` or `persona/<persona>/<name>`: unique in a catalog, what globs match. */
  id: string;
  name: string;
  description: string;
  scope: SkillScope;
  persona?: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** `allowed-tools`, split on whitespace. */
  allowedTools?: string[];
  /** Absolute path of the skill folder, and of its SKILL.md. */
  dir: string;
  file: string;
  /** `sha256:<hex>` of the SKILL.md bytes at load. */
  digest: string;
  bodyLines: number;
  /** Advice that does not stop loading (a body over 500 lines). */
  warnings: string[];
}

export interface SkillRefusal {
  /** The SKILL.md (or the folder, when SKILL.md is missing). */
  file: string;
  folder: string;
  scope: SkillScope;
  persona?: string;
  field: string;
  reason: string;
  /** The one line: `<file>: <field>: <reason>`. */
  message: string;
}

export interface ActivatedSkill {
  skill: SkillMeta;
  body: string;
  /** Digest of SKILL.md as read now; differs from `skill.digest` if it changed since load. */
  digest: string;
}

export interface SkillCatalog {
  readonly skills: readonly SkillMeta[];
  readonly refused: readonly SkillRefusal[];
  /** By id (`shared/x`) or bare name (`x`); a bare name in two scopes is ambiguous. */
  get(nameOrId: string): SkillMeta;
  /** Reads the body of SKILL.md (the text after the front matter). */
  activate(nameOrId: string): Promise<ActivatedSkill>;
  /** Reads a file inside the skill folder; refuses paths that escape it, via `..` or symlinks. */
  reference(nameOrId: string, relPath: string): Promise<string>;
  /** The files `reference` can serve, sorted. */
  listReferences(nameOrId: string): Promise<string[]>;
}

export interface LoadSkillCatalogOptions {
  /** Path prefix stripped from file names in refusal messages (default: the cwd). */
  displayRoot?: string;
  /** Cap on a SKILL.md's size, refused above it (default 1 MiB). */
  maxSkillFileBytes?: number;
  /** Cap on a referenced file's size (default 1 MiB). */
  maxReferenceBytes?: number;
}

const DEFAULT_MAX_SKILL_FILE_BYTES = 1024 * 1024;

function skillId(root: SkillRoot, name: string): string {
  return root.scope === 'shared' ? `shared/${name}` : `persona/${root.persona}/${name}`;
}

function checkRoot(root: SkillRoot): void {
  if (root.scope === 'persona' && (root.persona === undefined || !PERSONA_ID_PATTERN.test(root.persona))) {
    throw kernelError(
      'RTC_ERR_SKILL_INVALID',
      `skill root ${root.dir}: scope "persona" needs a persona id of lowercase letters, digits, "-" and "_" (got ${JSON.stringify(root.persona)})`,
    );
  }
}

type FolderResult = { skill: SkillMeta } | { refusal: SkillRefusal } | undefined;

async function loadFolder(root: SkillRoot, folder: string, options: Required<LoadSkillCatalogOptions>): Promise<FolderResult> {
  const dir = path.resolve(root.dir, folder);
  const file = path.join(dir, 'SKILL.md');
  const display = path.relative(options.displayRoot, file) || file;
  const refuse = (field: string, reason: string): FolderResult => ({
    refusal: {
      file,
      folder,
      scope: root.scope,
      ...(root.persona === undefined ? {} : { persona: root.persona }),
      field,
      reason,
      message: `${display}: ${field}: ${reason}`,
    },
  });

  let info;
  try {
    info = await stat(file);
  } catch {
    return refuse(FIELD_FILE, 'missing: a skill folder needs a SKILL.md');
  }
  if (!info.isFile()) return refuse(FIELD_FILE, 'SKILL.md is not a regular file');
  if (info.size > options.maxSkillFileBytes) {
    return refuse(FIELD_FILE, `SKILL.md is ${info.size} bytes, over the ${options.maxSkillFileBytes}-byte cap`);
  }
  const parsed = parseSkillFile(await readFile(file), folder);
  if (!parsed.ok) return refuse(parsed.field, parsed.reason);

  const fm = parsed.frontmatter;
  const declared = fm['allowed-tools'];
  const allowedTools = declared === undefined ? undefined : (typeof declared === 'string' ? declared.split(/\s+/) : declared).filter((t) => t !== '');
  return {
    skill: {
      id: skillId(root, fm.name),
      name: fm.name,
      description: fm.description,
      scope: root.scope,
      ...(root.persona === undefined ? {} : { persona: root.persona }),
      ...(fm.license === undefined ? {} : { license: fm.license }),
      ...(fm.compatibility === undefined ? {} : { compatibility: fm.compatibility }),
      ...(fm.metadata === undefined ? {} : { metadata: fm.metadata }),
      ...(allowedTools === undefined ? {} : { allowedTools }),
      dir,
      file,
      digest: parsed.digest,
      bodyLines: parsed.bodyLines,
      warnings: parsed.warnings,
    },
  };
}

/** Skill folders of one root: directories (or links to them), hidden ones skipped; a missing root is empty. */
async function skillFolders(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) folders.push(entry.name);
    else if (entry.isSymbolicLink()) {
      const target = await stat(path.join(dir, entry.name)).catch(() => undefined);
      if (target?.isDirectory()) folders.push(entry.name);
    }
  }
  return folders.sort();
}

export async function loadSkillCatalog(roots: readonly SkillRoot[], options: LoadSkillCatalogOptions = {}): Promise<SkillCatalog> {
  const resolved: Required<LoadSkillCatalogOptions> = {
    displayRoot: options.displayRoot ?? process.cwd(),
    maxSkillFileBytes: options.maxSkillFileBytes ?? DEFAULT_MAX_SKILL_FILE_BYTES,
    maxReferenceBytes: options.maxReferenceBytes ?? DEFAULT_REFERENCE_MAX_BYTES,
  };
  for (const root of roots) checkRoot(root);

  const perRoot = await Promise.all(
    roots.map(async (root) => Promise.all((await skillFolders(root.dir)).map((folder) => loadFolder(root, folder, resolved)))),
  );

  const skills: SkillMeta[] = [];
  const refused: SkillRefusal[] = [];
  const byId = new Map<string, SkillMeta>();
  for (const result of perRoot.flat()) {
    if (result === undefined) continue;
    if ('refusal' in result) {
      refused.push(result.refusal);
      continue;
    }
    const earlier = byId.get(result.skill.id);
    if (earlier) {
      const display = path.relative(resolved.displayRoot, result.skill.file) || result.skill.file;
      const reason = `duplicates ${earlier.id}, already loaded from ${path.relative(resolved.displayRoot, earlier.file) || earlier.file}`;
      refused.push({
        file: result.skill.file,
        folder: path.basename(result.skill.dir),
        scope: result.skill.scope,
        ...(result.skill.persona === undefined ? {} : { persona: result.skill.persona }),
        field: 'name',
        reason,
        message: `${display}: name: ${reason}`,
      });
      continue;
    }
    byId.set(result.skill.id, result.skill);
    skills.push(result.skill);
  }

  return makeCatalog(skills, refused, resolved.maxReferenceBytes);
}

function makeCatalog(skills: SkillMeta[], refused: SkillRefusal[], maxReferenceBytes: number): SkillCatalog {
  const get = (nameOrId: string): SkillMeta => {
    const byId = skills.find((s) => s.id === nameOrId);
    if (byId) return byId;
    const byName = skills.filter((s) => s.name === nameOrId);
    if (byName.length === 1 && byName[0]) return byName[0];
    if (byName.length > 1) {
      throw kernelError(
        'RTC_ERR_SKILL_AMBIGUOUS',
        `skill "${nameOrId}" is in more than one scope (${byName.map((s) => s.id).join(', ')}); name it by id`,
        { details: { skill: nameOrId, matches: byName.map((s) => s.id) } },
      );
    }
    throw kernelError('RTC_ERR_SKILL_UNKNOWN', `no skill "${nameOrId}" in the catalog`, { details: { skill: nameOrId } });
  };

  return {
    skills: Object.freeze([...skills]),
    refused: Object.freeze([...refused]),
    get,
    async activate(nameOrId) {
      const skill = get(nameOrId);
      const parsed = parseSkillFile(await readFile(skill.file), path.basename(skill.dir));
      if (!parsed.ok) {
        throw kernelError('RTC_ERR_SKILL_INVALID', `${skill.file}: ${parsed.field}: ${parsed.reason} (changed since the catalog loaded it)`, {
          details: { skill: skill.id, file: skill.file, field: parsed.field, reason: parsed.reason },
        });
      }
      return { skill, body: parsed.body, digest: parsed.digest };
    },
    async reference(nameOrId, relPath) {
      const skill = get(nameOrId);
      return readSkillReference(skill.id, skill.dir, relPath, maxReferenceBytes);
    },
    async listReferences(nameOrId) {
      return listSkillReferences(get(nameOrId).dir);
    },
  };
}
