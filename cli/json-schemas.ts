/** JSON Schema text for registered formats, generated from their zod schemas. */
import path from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT } from '../kernel/version.ts';
import { KERNEL_SCHEMAS, type RegisteredSchema } from './schema-registry.ts';

export const SCHEMAS_DIR = path.join(PROJECT_ROOT, 'schemas');

export function renderJsonSchemas(schemas: readonly RegisteredSchema[] = KERNEL_SCHEMAS): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of schemas) {
    const json = z.toJSONSchema(entry.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const doc = { ...json, $id: `https://runtimectl.local/schemas/${entry.name}.schema.json`, title: entry.title, description: `Generated from the zod schema by \`npm run schemas\`; do not edit.` };
    out.set(path.join(SCHEMAS_DIR, `${entry.name}.schema.json`), `${JSON.stringify(doc, null, 2)}\n`);
  }
  return out;
}
