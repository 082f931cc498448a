/**
 * Operator credentials for tests (features/review-queue/operators.ts): each named operator gets its
 * own config folder in a temp dir (never the real ~/.config), with its key, and every
 * folder trusts every operator made together, as several operators of one kernel would.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { initOperator, loadOperatorKey, OPERATOR_HOME_ENV, publicKeyPem, trustOperator, type OperatorKey } from '../../features/review-queue/operators.ts';

export interface TestOperator {
  name: string;
  home: string;
  /** the environment a CLI call (or a kernel) of this operator gets */
  env: Record<string, string>;
  key: OperatorKey;
}

export function makeOperators(names: readonly string[] = ['alice', 'bob']): Record<string, TestOperator> {
  const out: Record<string, TestOperator> = {};
  for (const name of names) {
    const home = mkdtempSync(path.join(os.tmpdir(), `rtc-operator-${name}-`));
    const env = { [OPERATOR_HOME_ENV]: home };
    initOperator(env, name);
    out[name] = { name, home, env, key: loadOperatorKey(env) };
  }
  for (const a of Object.values(out)) for (const b of Object.values(out)) if (a !== b) trustOperator(a.env, b.name, publicKeyPem(b.key));
  return out;
}
