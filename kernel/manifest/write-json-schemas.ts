/** `npm run schemas`: writes schemas/*.schema.json from the zod schemas (a test checks they are current). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderJsonSchemas } from './json-schemas.ts';

for (const [file, text] of renderJsonSchemas()) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
