/**
 * The skill search path every command that starts personas uses (`run`, `replay`, `mcp serve`,
 * `tools`): the built-in skills/, then RUNTIMECTL_SKILLS_PATH, then each --skills-dir.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CliIo } from '../command/command.ts';
import { kernelError } from '../../kernel/errors.ts';
import { REPO_SKILLS_DIR, SKILLS_PATH_ENV } from './layout.ts';

/**
 * The folders to search, or empty when neither the environment nor a flag adds one (the
 * built-in folder alone). A folder that does not exist is one line naming where it came from.
 */
export function skillSearchPath(flagDirs: readonly string[] | undefined, io: Pick<CliIo, 'env' | 'cwd'>): string[] {
  const fromEnv = (io.env[SKILLS_PATH_ENV] ?? '').split(':').map((d) => d.trim()).filter((d) => d !== '').map((d) => path.resolve(io.cwd, d));
  const extraSkills = [...fromEnv, ...(flagDirs ?? []).map((d) => path.resolve(io.cwd, d))];
  for (const dir of extraSkills) if (!existsSync(dir)) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `skills folder ${dir} does not exist (from ${fromEnv.includes(dir) ? SKILLS_PATH_ENV : '--skills-dir'})`);
  return extraSkills.length > 0 ? [REPO_SKILLS_DIR, ...extraSkills] : [];
}
