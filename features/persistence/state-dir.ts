/**
 * The state directory as the feature commands find it, and the personas in it. Every
 * command that takes `--state-dir` resolves it here (flag, else SCIDEX_AGENT_STATE_DIR, else
 * ./state: features/persistence/state/state-dir.ts `chooseStateDir`), and every command that walks all
 * personas lists them here, so `verify`, `activity`, `replay` and `persistence status` agree
 * on what a persona folder is.
 */
import type { CliIo } from '../command/command.ts';
import { chooseStateDir, personaFolders } from './state/state-dir.ts';

/** Folders under the state directory that are not personas. */
export const NON_PERSONA_DIRS: ReadonlySet<string> = new Set(['workspaces']);

/** The state directory a command's `--state-dir` flag (or the environment, or the default) names. */
export function resolveStateDir(flag: string | undefined, io: CliIo): string {
  return chooseStateDir(flag, io.env, io.cwd).stateDir;
}

/** The persona folders of a state directory, sorted (hidden folders and NON_PERSONA_DIRS left out). */
export function listPersonaIds(stateDir: string): string[] {
  return personaFolders(stateDir, NON_PERSONA_DIRS);
}
