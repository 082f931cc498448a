/**
 * Each executor's provider home, `<state>/<persona>/brain/providers/<executor>/`: HOME of its
 * sessions, and where codex (`CODEX_HOME`) and claude (`CLAUDE_CONFIG_DIR`) keep their
 * configuration, credentials, session history and project memory. One per persona and
 * executor, inside the persona's state: nothing is shared between personas, and it moves with
 * the persona's volume. Credentials are staged here by the operator (docs/executors.md); the
 * kernel never copies anything from the operator's own home.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { errorLine, isKernelError, kernelError } from '../../../kernel/errors.ts';
import { mkdirBeneath, removeBeneath, writeFileBeneath } from '../../../sandboxes/fs-safety/no-follow.ts';

export { providerHomeDir, providerName } from '../../persona-layout/layout.ts';

/**
 * Creates the provider home when missing and checks it is a real folder inside the persona's
 * own state that the kernel can write; RTC_ERR_EXECUTOR_PROVIDER_HOME saying what is wrong.
 * The executor's sessions write this folder (it is their HOME): every step here walks from
 * the state directory without following a link (sandboxes/fs-safety/no-follow.ts), so a link a
 * session left in place of the home, or of the write probe, is refused or replaced, never
 * followed.
 */
export function ensureProviderHome(stateDir: string, personaDir: string, home: string): void {
  const fail = (why: string, cause?: unknown): never => {
    throw kernelError('RTC_ERR_EXECUTOR_PROVIDER_HOME', `provider home ${path.relative(path.dirname(personaDir), home)}: ${why}`, { details: { home }, ...(cause ? { cause } : {}) });
  };
  try {
    mkdirBeneath(home, { anchor: stateDir, mode: 0o700 });
  } catch (error) {
    const there = lstatSync(home, { throwIfNoEntry: false });
    if (there && (there.isSymbolicLink() || !there.isDirectory())) fail('is not a folder (a link or a file stands there)', error);
    if (isKernelError(error) && error.code === 'RTC_ERR_FS_LINK_REFUSED') fail('is not a folder (a link stands on its path)', error);
    fail(`cannot be created (${(error as { details?: { code?: string } }).details?.code ?? errorLine(error)})`, error);
  }
  const st = lstatSync(home, { throwIfNoEntry: false });
  if (!st || st.isSymbolicLink() || !st.isDirectory()) fail('is not a folder (a link or a file stands there)');
  let real: string;
  try {
    real = realpathSync(home);
  } catch (error) {
    return fail(`cannot be resolved (${(error as Error).message})`, error);
  }
  const ownReal = realpathSync(personaDir);
  if (!real.startsWith(`${ownReal}${path.sep}`)) fail(`resolves to ${real}, outside the persona's own folder`);
  // access(W_OK) says yes to root on a read-only mount: a real write is the only honest check.
  const probe = path.join(home, '.runtimectl-write-check');
  try {
    writeFileBeneath(probe, '', { anchor: stateDir });
    removeBeneath(probe, { anchor: stateDir });
  } catch (error) {
    fail(`is not writable (${(error as { details?: { code?: string } }).details?.code ?? errorLine(error)})`, error);
  }
}
