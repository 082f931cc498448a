/**
 * `runtimectl skills list [--dir DIR]... [--json]`: loads the skill catalog the way the
 * loop does (metadata only) and lists each skill, each warning, and each refused skill
 * with its reason. Exits 1 when any skill was refused, so a bad SKILL.md fails CI.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { loadSkillCatalog, type SkillRoot } from './catalog.ts';
import { REPO_SKILLS_DIR, skillRootsForDir } from './layout.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';

const USAGE = `Usage: runtimectl skills list [--dir DIR]... [--json]

Lists the skills (folders with a SKILL.md in the Agent Skills format) and refuses each
malformed one with its file, field and reason. Only front matter is read.

Options:
  --dir DIR   a skills folder; repeatable. A folder with shared/ or persona/<id>/ inside
              uses the repo layout; any other folder is one flat root of shared skills.
              Default: the repo's skills/ folder.
  --json      print one JSON document: {skills, refused}

Exit status: 0 when every skill loaded, 1 when any was refused.
`;

/** Roots for every --dir, refusing one that does not exist. */
export function skillRootsForDirs(dirs: readonly string[], cwd: string): SkillRoot[] {
  return dirs.flatMap((dir) => {
    const abs = path.resolve(cwd, dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `--dir ${dir}: no such directory`, { details: { path: dir } });
    }
    return skillRootsForDir(abs);
  });
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { dir: { type: 'string', multiple: true }, json: { type: 'boolean' } }, 'skills list', false);
  const dirs = values.dir && values.dir.length > 0 ? values.dir : [REPO_SKILLS_DIR];
  const catalog = await loadSkillCatalog(skillRootsForDirs(dirs, io.cwd), { displayRoot: io.cwd });

  if (values.json) {
    printJson(io, {
      skills: catalog.skills.map(({ dir: _dir, ...rest }) => ({ ...rest, file: path.relative(io.cwd, rest.file) || rest.file })),
      refused: catalog.refused.map(({ file, ...rest }) => ({ ...rest, file: path.relative(io.cwd, file) || file })),
    });
  } else {
    const width = Math.max(0, ...catalog.skills.map((s) => s.id.length));
    for (const skill of catalog.skills) {
      const oneLine = skill.description.replace(/\s+/g, ' ');
      const short = oneLine.length > 100 ? `${oneLine.slice(0, 97)}...` : oneLine;
      io.stdout(`${skill.id.padEnd(width)}  ${short}\n`);
      for (const warning of skill.warnings) io.stdout(`${' '.repeat(width)}  warning: ${warning}\n`);
    }
    io.stdout(`${catalog.skills.length} skill(s) loaded, ${catalog.refused.length} refused\n`);
    for (const refusal of catalog.refused) io.stderr(`runtimectl: refused skill: ${refusal.message}\n`);
  }
  return catalog.refused.length === 0 ? 0 : 1;
}

export const skillsListCommand: Command = {
  path: ['skills', 'list'],
  summary: 'list the skill catalog and refuse malformed skills with the reason',
  usage: USAGE,
  run,
};
