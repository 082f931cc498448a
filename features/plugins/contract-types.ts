/**
 * The types of a plugin kind's contract as plain TypeScript, printed from the kernel's zod
 * schemas (kernel/contracts, through their JSON Schemas), for `plugins new` to write into the
 * new plugin's own folder as `contract.ts`. A scaffolded plugin then imports nothing from the
 * checkout: it builds, type-checks and runs wherever its folder is, however the checkout moves.
 * The copy is the contract of the runtimectl that wrote it; the kernel checks every answer
 * against the live schema at run time (and `plugins check` loads the bundle), so a drifted copy
 * is caught there, never trusted.
 */
import { z } from 'zod';
import { budgetAssessInputSchema, budgetDecisionSchema } from '../../kernel/contracts/budget-policy.ts';
import { executorDescriptionSchema, executorInputSchema, executorResultSchema } from '../../kernel/contracts/executor.ts';
import { gateCheckInputSchema, gateCheckResultSchema } from '../../kernel/contracts/gate-check.ts';
import { phaseAnswerSchema, phasePickInputSchema } from '../../kernel/contracts/phase-selector.ts';
import { loopStepInputSchema, loopStepResultSchema } from '../../kernel/contracts/loop-step.ts';
import { KERNEL_VERSION } from '../../kernel/version.ts';

interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema | JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
}

/** One type of a contract: its name in the scaffold (the kernel's own name for it) and its schema. */
interface ContractType {
  name: string;
  schema: z.ZodType;
  /** the schema's export in the kernel's contract module */
  schemaExport: string;
  doc: string;
}

/**
 * The types each scaffolded kind's mod.ts uses. Each is the schema's input side (z.input): what
 * a plugin may return before the kernel fills defaults and trims, and, for what it is called
 * with, the same fields (a field with a default is optional here; the kernel does fill it).
 */
export const CONTRACT_TYPES: Record<string, ContractType[]> = {
  executor: [
    { name: 'ExecutorDescription', schema: executorDescriptionSchema, schemaExport: 'executorDescriptionSchema', doc: 'what describe(config) returns' },
    { name: 'ExecutorInput', schema: executorInputSchema, schemaExport: 'executorInputSchema', doc: 'what run(input) is called with: one session of the cycle\'s work' },
    { name: 'ExecutorAnswer', schema: executorResultSchema, schemaExport: 'executorResultSchema', doc: 'what run(input) returns' },
  ],
  'budget-policy': [
    { name: 'BudgetAssessInput', schema: budgetAssessInputSchema, schemaExport: 'budgetAssessInputSchema', doc: 'what assess(input) is called with' },
    { name: 'BudgetDecisionAnswer', schema: budgetDecisionSchema, schemaExport: 'budgetDecisionSchema', doc: 'what assess(input) returns: the decision record the cycle event carries' },
  ],
  'phase-selector': [
    { name: 'PhasePickInput', schema: phasePickInputSchema, schemaExport: 'phasePickInputSchema', doc: 'what pick(input) is called with' },
    { name: 'PhaseAnswer', schema: phaseAnswerSchema, schemaExport: 'phaseAnswerSchema', doc: 'what pick(input) returns: one of input.phases' },
  ],
  'loop-step': [
    { name: 'LoopStepInput', schema: loopStepInputSchema, schemaExport: 'loopStepInputSchema', doc: 'what run(input) is called with: the cycle, and the step values its manifest reads and uses' },
    { name: 'LoopStepResult', schema: loopStepResultSchema, schemaExport: 'loopStepResultSchema', doc: 'what run(input) returns: the values it produces, the cycle event fields it adds, the cycle\'s problems' },
  ],
  'gate-check': [
    { name: 'GateCheckInput', schema: gateCheckInputSchema, schemaExport: 'gateCheckInputSchema', doc: 'what check(input) is called with: the draft\'s snapshot and what earlier checks found' },
    { name: 'GateCheckResult', schema: gateCheckResultSchema, schemaExport: 'gateCheckResultSchema', doc: 'what check(input) returns' },
  ],
};

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function comment(text: string | undefined, indent: string): string {
  if (!text) return '';
  return `${indent}/** ${text.replace(/\*\//g, '* /').replace(/\s*\n\s*/g, ' ')} */\n`;
}

/** Parenthesized when it is a union, so `[]` applies to the whole. */
function atom(type: string): string {
  return type.includes(' | ') && !type.startsWith('{') ? `(${type})` : type;
}

/** A TypeScript type for one JSON Schema (the subset zod writes: no $ref). */
function tsType(s: JsonSchema, indent: string): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = s.anyOf ?? s.oneOf;
  if (union) return [...new Set(union.map((x) => tsType(x, indent)))].join(' | ');
  if (Array.isArray(s.type)) return s.type.map((t) => tsType({ ...s, type: t }, indent)).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return Array.isArray(s.items) || s.items === undefined ? 'unknown[]' : `${atom(tsType(s.items, indent))}[]`;
    case 'object': {
      const props = Object.entries(s.properties ?? {});
      const extra = typeof s.additionalProperties === 'object' ? tsType(s.additionalProperties, indent) : s.additionalProperties === false ? undefined : 'unknown';
      if (props.length === 0) return `Record<string, ${extra ?? 'never'}>`;
      const inner = `${indent}  `;
      const required = new Set(s.required ?? []);
      const lines = props.map(([key, value]) => `${comment(value.description, inner)}${inner}${IDENTIFIER.test(key) ? key : JSON.stringify(key)}${required.has(key) ? '' : '?'}: ${tsType(value, inner)};`);
      // zod objects are open unless strict: other keys may come along (and are ignored)
      if (extra !== undefined && typeof s.additionalProperties === 'object') lines.push(`${inner}[key: string]: unknown;`);
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default:
      return 'unknown';
  }
}

/** `contract.ts` for a kind, or undefined for a kind whose mod.ts needs no contract type (a tool). */
export function contractModule(kind: string): string | undefined {
  const types = CONTRACT_TYPES[kind];
  if (!types) return undefined;
  const body = types
    .map((t) => {
      const json = z.toJSONSchema(t.schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      return `${comment(`${t.doc}${json.description ? `. ${json.description}` : ''}`, '')}export type ${t.name} = ${tsType(json, '')};\n`;
    })
    .join('\n');
  return `/**
 * The ${kind} contract of runtimectl ${KERNEL_VERSION}: what the kernel calls this plugin with and
 * what it accepts back (docs/plugin-contracts.md of runtimectl). Written by "runtimectl plugins
 * new" from the kernel's schemas, so this folder needs nothing of the checkout; the kernel
 * checks every answer against its own schema when it runs the plugin.
 */

${body}`;
}
