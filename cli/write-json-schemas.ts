/** `npm run schemas`: writes schemas/*.schema.json and docs/plugin-contracts.md from the zod schemas, and docs/errors.md from kernel/errors.ts (tests check they are current). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderJsonSchemas } from './json-schemas.ts';
import { CONTRACT_DOC, renderContractDoc } from './contract-docs.ts';
import { ERRORS_DOC, renderErrorsDoc } from './errors-doc.ts';
import { SCHEMAS } from './schemas.ts';

const files = new Map([...renderJsonSchemas(SCHEMAS), [CONTRACT_DOC, renderContractDoc()], [ERRORS_DOC, renderErrorsDoc()]]);
for (const [file, text] of files) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
