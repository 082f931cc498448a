/** JSON Schema text for every registered format, generated from its zod schema. */
import path from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT } from '../version.ts';
import { SCHEMAS } from './schema-registry.ts';

export const SCHEMAS_DIR = path.join(PROJECT_ROOT, 'schemas');

export function renderJsonSchemas(): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of SCHEMAS) {
    const json = z.toJSONSchema(entry.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const doc = { ...json, $id: `https://runtimectl.local/schemas/${entry.name}.schema.json`, title: entry.title, description: `Generated from the zod schema by \`npm run schemas\`; do not edit.` };
    out.set(path.join(SCHEMAS_DIR, `${entry.name}.schema.json`), `${JSON.stringify(doc, null, 2)}\n`);
  }
  return out;
}
