/**
 * Host paths in a trace are written as placeholders so a recording does not depend on where
 * the state directory or the kernel live (a determinism rule: no host path in a hashed
 * payload), and a replay in a moved state directory still answers with paths that exist.
 * Work is done on JSON text, with each path in its JSON-escaped form.
 *
 * Known limit: a recorded text that itself contains `<state>` or `<runtimectl>` comes back
 * from replay as the path; both forms hash the same, so the check is unaffected.
 */
import { pathVariants } from '../persona-layout/host-paths.ts';
import { scrubber } from '../secret-values/secret-values.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';

export interface PathCodec {
  /** host paths → placeholders (what is written and compared) */
  toRecord(jsonText: string): string;
  /** placeholders → this host's paths (what a replayed plugin is answered) */
  fromRecord(jsonText: string): string;
}

const escaped = (p: string) => JSON.stringify(p).slice(1, -1);

/**
 * `scrub` (the persona's secret values and the pattern rules) runs before the path
 * placeholders on everything recorded and on everything a replay compares, so no secret is
 * written into a trace and a replay produces the recorded bytes.
 */
export function pathCodec(stateDir: string, projectRoot = PROJECT_ROOT, scrub: (jsonText: string) => string = scrubber().json): PathCodec {
  const places: [string, string][] = [
    ['<state>', stateDir],
    ['<runtimectl>', projectRoot],
  ];
  const forward = places
    .flatMap(([name, dir]) => pathVariants(dir).map((p): [string, string] => [escaped(p), name]))
    .filter(([p]) => p.length > 1)
    .sort((a, b) => b[0].length - a[0].length);
  const back = places.map(([name, dir]): [string, string] => [name, escaped(dir)]);
  const replace = (text: string, pairs: [string, string][]) => {
    let out = text;
    for (const [from, to] of pairs) if (out.includes(from)) out = out.split(from).join(to);
    return out;
  };
  return { toRecord: (text) => replace(scrub(text), forward), fromRecord: (text) => replace(text, back) };
}
