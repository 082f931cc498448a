// Whether the precompiled CLI (.build/runtimectl.mjs) may run: it exists, was built in this
// checkout, and every source file it was built from has the size and modification time it
// had then. One stat per source file (a few milliseconds). Shared by bin/runtimectl.js and
// its tests; plain JS so it needs nothing compiled.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const BUILD_FORMAT = 'runtimectl.build/1';

/** The bundle's path when it is fresh for `root`, else undefined (and why, for `--build-info`). */
export function freshBuild(root, env = process.env) {
  if (env.RUNTIMECTL_NO_BUILD === '1') return { reason: 'RUNTIMECTL_NO_BUILD=1' };
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(root, '.build', 'runtimectl.json'), 'utf8'));
  } catch {
    return { reason: 'no build (npm run build makes one)' };
  }
  if (manifest.format !== BUILD_FORMAT) return { reason: `build format ${manifest.format} is not ${BUILD_FORMAT}` };
  if (manifest.root !== root) return { reason: `built in ${manifest.root}, not here` };
  for (const [file, [size, mtimeMs]] of Object.entries(manifest.inputs ?? {})) {
    const st = statSync(path.join(root, file), { throwIfNoEntry: false });
    if (!st || st.size !== size || st.mtimeMs !== mtimeMs) return { reason: `${file} changed since the build` };
  }
  return { bundle: path.join(root, '.build', 'runtimectl.mjs') };
}
