/**
 * The "bundle" of a host-module plugin (a persistence backend): it is never bundled for an
 * isolate (its node: and native imports cannot be), so its digest is taken over what it
 * runs instead: the entry and every project file it reaches through relative imports (as
 * esbuild resolves them, npm packages left out), each by sha256. A changed kernel file the
 * backend relies on changes its digest as surely as a changed backend.ts does.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from '../build/esbuild.ts';
import { kernelError } from '../errors.ts';
import { sha256 } from '../build/bundle.ts';

export interface HostModuleDigest {
  digest: string;
  /** Input files, relative to the entry's folder, and their sha256. */
  inputs: Record<string, string>;
}

/** The digest over sorted `<relative path>\0<sha256>\n` lines of the inputs. */
export function digestOfInputs(inputs: Record<string, string>): string {
  return sha256(
    Object.keys(inputs)
      .sort()
      .map((file) => `${file}\0${inputs[file]}\n`)
      .join(''),
  );
}

export async function hostModuleDigest(entry: string): Promise<HostModuleDigest> {
  // Through links (a plugin folder linked into a search path): esbuild reports inputs from the real path.
  const absolute = realpathSync(path.resolve(entry));
  const base = path.dirname(absolute);
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await (await loadEsbuild()).build({
      entryPoints: [absolute],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      target: 'node20',
      logLevel: 'silent',
      absWorkingDir: base,
    });
  } catch (error) {
    const first = (error as esbuild.BuildFailure).errors?.[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column}` : absolute;
    throw kernelError('RTC_ERR_BUILD_FAILED', `${where}: ${first?.text ?? String(error)}`, { details: { file: absolute } });
  }
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(result.metafile.inputs).sort()) {
    const file = path.resolve(base, input);
    inputs[path.relative(base, file)] = sha256(readFileSync(file));
  }
  return { digest: digestOfInputs(inputs), inputs };
}
