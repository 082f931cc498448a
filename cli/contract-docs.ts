/**
 * docs/plugin-contracts.md, generated from the contract zod schemas (kernel/contracts): per
 * kind, what selects it, each export the kernel calls with its argument and answer as field
 * tables, and the JSON Schema file beside each. `npm run schemas` writes it; a test fails when
 * it is stale.
 */
import path from 'node:path';
import { z } from 'zod';
import { PLUGIN_CONTRACTS } from './contract-catalog.ts';
import { PROJECT_ROOT } from '../kernel/version.ts';

export const CONTRACT_DOC = path.join(PROJECT_ROOT, 'docs', 'plugin-contracts.md');

type Json = { type?: unknown; properties?: Record<string, Json>; required?: string[]; description?: string; items?: Json; enum?: unknown[]; anyOf?: Json[]; additionalProperties?: unknown; const?: unknown };

function typeOf(s: Json): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeOf).join(' \\| ');
  if (s.type === 'array') return `${s.items ? typeOf(s.items) : 'any'}[]`;
  if (s.type === 'object' && s.properties) return 'object';
  if (s.type === 'object') return 'mapping';
  if (Array.isArray(s.type)) return s.type.join(' \\| ');
  return typeof s.type === 'string' ? s.type : 'any';
}

/** One row per field, nested object fields as `a.b`, array-of-object fields as `a[].b`. */
function rows(schema: Json, prefix = ''): string[] {
  const out: string[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const key = `${prefix}${name}`;
    out.push(`| \`${key}\` | ${typeOf(field)} | ${required.has(name) ? 'yes' : ''} | ${(field.description ?? '').replace(/\|/g, '\\|')} |`);
    if (field.type === 'object' && field.properties) out.push(...rows(field, `${key}.`));
    if (field.type === 'array' && field.items?.type === 'object' && field.items.properties) out.push(...rows(field.items, `${key}[].`));
    for (const alt of field.anyOf ?? []) if (alt.type === 'object' && alt.properties) out.push(...rows(alt, `${key}.`));
  }
  return out;
}

function table(name: string, schema: z.ZodType, io: 'input' | 'output'): string[] {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return ['', `Schema: [\`schemas/${name}.schema.json\`](../schemas/${name}.schema.json)`, '', '| field | type | required | what |', '|---|---|---|---|', ...rows(json)];
}

export function renderContractDoc(): string {
  const lines = [
    '# Plugin contracts',
    '',
    'Generated from the zod schemas in `kernel/contracts/` by `npm run schemas`; do not edit.',
    'Each kind has one contract, shared by the kernel (which checks every answer against it) and',
    'plugins (which import its types with `import type`). How to write a plugin: `docs/writing-plugins.md`.',
    '',
  ];
  for (const c of PLUGIN_CONTRACTS) {
    lines.push(`## \`${c.kind}\``, '', c.summary, '', `Selected by the ${c.selectedIn ?? 'persona profile'}'s \`${c.selectedBy}\`. Types: \`${c.module}\`.`);
    if (c.note) lines.push('', c.note);
    for (const call of c.calls) {
      lines.push('', `### \`${call.export}(${call.input ? 'input' : 'config'})\``, '', call.doc);
      if (call.input) lines.push('', `Called with:`, ...table(call.input.name, call.input.schema, 'output'));
      if (call.output) lines.push('', `Returns:`, ...table(call.output.name, call.output.schema, 'input'));
    }
    if (c.manifest) lines.push('', `### In the manifest: \`${c.manifest.field}:\``, '', c.manifest.doc, ...table(c.manifest.name, c.manifest.schema, 'input'));
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
