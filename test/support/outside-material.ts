/**
 * Material some tests need from outside the repository: the specification folder
 * `../shared/` beside the checkout (the real anthropics/skills corpus lives there). A fresh
 * clone without it still passes `npm test`: such tests skip, and the runner prints the
 * reason. CI has the folder and sets RUNTIMECTL_REQUIRE_SHARED=1, which turns a missing
 * folder into a failure instead of a skip, so the tests cannot silently stop running there.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');

/** `../shared/<rel>` beside the repository. */
export function sharedPath(rel: string): string {
  return path.resolve(REPO, '..', 'shared', rel);
}

/**
 * `false` when `../shared/<rel>` exists, else the visible skip reason for node:test's
 * `skip` option. With RUNTIMECTL_REQUIRE_SHARED=1 a missing folder throws at load.
 */
export function skipWithoutShared(rel: string): false | string {
  const where = sharedPath(rel);
  if (existsSync(where)) return false;
  const reason = `needs ${path.relative(REPO, where)} (outside the repository; absent in this checkout)`;
  if (process.env.RUNTIMECTL_REQUIRE_SHARED === '1') throw new Error(`RUNTIMECTL_REQUIRE_SHARED=1 but this test ${reason}`);
  return reason;
}
