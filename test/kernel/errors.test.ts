/**
 * The error codes are pinned (the practice of Fastify's test/internals/errors.test.js): a literal,
 * sorted copy of every code, so adding, renaming or dropping one is a visible change here; each
 * key is its own code and follows the naming pattern; each code is raised somewhere in the
 * sources (else it is dead and must be retired) and a retired code nowhere; docs/errors.md is the
 * generated reference; and the codes no test names yet are listed, a list that may only shrink.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ERRORS_DOC, codeAnchor, errorAreas, renderErrorsDoc } from '../../cli/errors-doc.ts';
import { ERROR_CODES, RETIRED_ERROR_CODES, kernelError, type ErrorCode } from '../../kernel/errors.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { isTestPath, sourceFiles } from './layering-check.ts';

const PATTERN = /^RTC_ERR_[A-Z]+(_[A-Z0-9]+)+$/;
/** Shipped before the pattern (one word after RTC_ERR_); kept, as a shipped code is never renamed. */
const BEFORE_THE_PATTERN = new Set(['RTC_ERR_UNSUPPORTED']);

/** Every code, sorted. Add yours in its place (sorted, so two additions are two hunks). */
const EXPECTED_CODES = [
  'RTC_ERR_BROKER_BAD_ARGS',
  'RTC_ERR_BROKER_DUPLICATE_OP',
  'RTC_ERR_BROKER_UNKNOWN_OP',
  'RTC_ERR_BUILD_FAILED',
  'RTC_ERR_BUILD_IMPORT_SCOPE',
  'RTC_ERR_CLI_FILE_NOT_FOUND',
  'RTC_ERR_CLI_USAGE',
  'RTC_ERR_CONSOLE_AUTH',
  'RTC_ERR_CONSOLE_CSRF',
  'RTC_ERR_CONSOLE_LISTEN',
  'RTC_ERR_CONSOLE_NOT_FOUND',
  'RTC_ERR_CONSOLE_REQUEST',
  'RTC_ERR_ENV_INVALID',
  'RTC_ERR_EVENTS_BUSY',
  'RTC_ERR_EVENTS_CHAIN',
  'RTC_ERR_EVENTS_CLOSED',
  'RTC_ERR_EVENTS_CORRUPT',
  'RTC_ERR_EVENTS_INVALID',
  'RTC_ERR_EVENTS_VERSION',
  'RTC_ERR_EVENTS_WRITE',
  'RTC_ERR_EVIDENCE_INVALID',
  'RTC_ERR_EVIDENCE_MISMATCH',
  'RTC_ERR_EVIDENCE_NOT_FOUND',
  'RTC_ERR_EXECUTOR_PROVIDER_HOME',
  'RTC_ERR_EXECUTOR_RESULT',
  'RTC_ERR_FS_ACCESS',
  'RTC_ERR_FS_LINK_REFUSED',
  'RTC_ERR_GATE_CHECK_GRANT',
  'RTC_ERR_GATE_CHECK_RESULT',
  'RTC_ERR_GATE_CHECK_UNKNOWN',
  'RTC_ERR_GATE_OUT_NOT_EMPTY',
  'RTC_ERR_GATE_PROFILE_UNKNOWN',
  'RTC_ERR_GATE_TARGET',
  'RTC_ERR_HARNESS_STEP',
  'RTC_ERR_HISTORY_ARCHIVE',
  'RTC_ERR_HISTORY_ARCHIVED',
  'RTC_ERR_HISTORY_CHECKPOINT',
  'RTC_ERR_HISTORY_CONFIG',
  'RTC_ERR_HISTORY_INDEX',
  'RTC_ERR_HISTORY_RETENTION',
  'RTC_ERR_HISTORY_SEGMENT',
  'RTC_ERR_LEDGER_BACKEND_MISMATCH',
  'RTC_ERR_LEDGER_BLOCKED',
  'RTC_ERR_LEDGER_CONFIG',
  'RTC_ERR_LEDGER_CORRUPT',
  'RTC_ERR_LEDGER_IMPORT',
  'RTC_ERR_LEDGER_INPUT',
  'RTC_ERR_LEDGER_LEASE_HELD',
  'RTC_ERR_LEDGER_LEASE_NOT_OWNER',
  'RTC_ERR_LEDGER_LEASE_STALE',
  'RTC_ERR_LEDGER_LOCKED',
  'RTC_ERR_LEDGER_NOT_FOUND',
  'RTC_ERR_LEDGER_PATH_ESCAPE',
  'RTC_ERR_LEDGER_SCHEMA_NEWER',
  'RTC_ERR_LEDGER_TRANSITION',
  'RTC_ERR_MANIFEST_INVALID',
  'RTC_ERR_MANIFEST_NOT_FOUND',
  'RTC_ERR_MANIFEST_YAML',
  'RTC_ERR_MODULE_NOT_FOUND',
  'RTC_ERR_MODULE_UNSUPPORTED',
  'RTC_ERR_NODE_FLAGS',
  'RTC_ERR_NPM_INSTALL',
  'RTC_ERR_NPM_LOCKFILE',
  'RTC_ERR_NPM_NATIVE_ADDON',
  'RTC_ERR_NPM_NODE_BUILTIN',
  'RTC_ERR_NPM_NOT_INSTALLED',
  'RTC_ERR_NPM_SOURCE_REFUSED',
  'RTC_ERR_OSBOX_GRANT',
  'RTC_ERR_OSBOX_UNAVAILABLE',
  'RTC_ERR_PERMISSION_CEILING',
  'RTC_ERR_PERMISSION_FLAG',
  'RTC_ERR_PERSISTENCE_BACKEND',
  'RTC_ERR_PERSISTENCE_BINDING',
  'RTC_ERR_PERSISTENCE_CONFIG',
  'RTC_ERR_PERSISTENCE_CORRUPT',
  'RTC_ERR_PERSISTENCE_EXPORT',
  'RTC_ERR_PERSISTENCE_INPUT',
  'RTC_ERR_PERSISTENCE_PATH_ESCAPE',
  'RTC_ERR_PERSISTENCE_PLUGIN',
  'RTC_ERR_PERSISTENCE_READONLY',
  'RTC_ERR_PERSISTENCE_SCHEMA_NEWER',
  'RTC_ERR_PERSISTENCE_SCHEMA_OLDER',
  'RTC_ERR_PERSISTENCE_STATEMENT',
  'RTC_ERR_PERSISTENCE_UNREACHABLE',
  'RTC_ERR_PERSONA_DUPLICATE',
  'RTC_ERR_PERSONA_LOCKED',
  'RTC_ERR_PERSONA_NOT_FOUND',
  'RTC_ERR_PERSONA_START',
  'RTC_ERR_PLUGIN_DUPLICATE',
  'RTC_ERR_PLUGIN_EXPORT_MISSING',
  'RTC_ERR_PLUGIN_KIND',
  'RTC_ERR_PLUGIN_REFUSED',
  'RTC_ERR_PLUGIN_SCAFFOLD',
  'RTC_ERR_PLUGIN_UNKNOWN',
  'RTC_ERR_PROFILE_UNKNOWN',
  'RTC_ERR_REPLAY_DIVERGED',
  'RTC_ERR_REPLAY_OUTPUT',
  'RTC_ERR_REPLAY_RECORDING',
  'RTC_ERR_REVIEW_BACKEND',
  'RTC_ERR_REVIEW_BACKPRESSURE',
  'RTC_ERR_REVIEW_BLOB',
  'RTC_ERR_REVIEW_DECIDED',
  'RTC_ERR_REVIEW_EVIDENCE',
  'RTC_ERR_REVIEW_EXPIRED',
  'RTC_ERR_REVIEW_INVALID',
  'RTC_ERR_REVIEW_LOCKED',
  'RTC_ERR_REVIEW_LOG_CORRUPT',
  'RTC_ERR_REVIEW_MEMORY_DRIFT',
  'RTC_ERR_REVIEW_NOT_ALLOWED',
  'RTC_ERR_REVIEW_NOT_FOUND',
  'RTC_ERR_REVIEW_OPERATOR',
  'RTC_ERR_REVIEW_TOO_LARGE',
  'RTC_ERR_REVIEW_TRANSITION',
  'RTC_ERR_SANDBOX_CPU',
  'RTC_ERR_SANDBOX_CRASHED',
  'RTC_ERR_SANDBOX_DISPOSED',
  'RTC_ERR_SANDBOX_MEMORY',
  'RTC_ERR_SANDBOX_NO_EXPORT',
  'RTC_ERR_SANDBOX_OUTPUT',
  'RTC_ERR_SANDBOX_SCRIPT',
  'RTC_ERR_SANDBOX_TRANSFER',
  'RTC_ERR_SANDBOX_WALL',
  'RTC_ERR_SKILL_AMBIGUOUS',
  'RTC_ERR_SKILL_INSTALL',
  'RTC_ERR_SKILL_INVALID',
  'RTC_ERR_SKILL_REFERENCE_ESCAPE',
  'RTC_ERR_SKILL_REFERENCE_NOT_FOUND',
  'RTC_ERR_SKILL_REFERENCE_TOO_LARGE',
  'RTC_ERR_SKILL_UNKNOWN',
  'RTC_ERR_STATE_DIR',
  'RTC_ERR_SUBSTRATE_CHANGED',
  'RTC_ERR_SUBSTRATE_OFF_PATH',
  'RTC_ERR_SUBSTRATE_RECORD',
  'RTC_ERR_TOOL_ARGS',
  'RTC_ERR_TOOL_BUDGET',
  'RTC_ERR_TOOL_DENIED',
  'RTC_ERR_TOOL_MCP_SERVER',
  'RTC_ERR_TOOL_MCP_TIMEOUT',
  'RTC_ERR_TOOL_RELAY',
  'RTC_ERR_TOOL_SCRIPT',
  'RTC_ERR_TOOL_UNKNOWN',
  'RTC_ERR_TRACE_WRITE',
  'RTC_ERR_UNSUPPORTED',
  'RTC_ERR_WORKER_FAILED',
  'RTC_ERR_WORKSPACE_CONFLICT',
  'RTC_ERR_WORKSPACE_ID_INVALID',
  'RTC_ERR_WORKSPACE_RESOURCE_INVALID',
  'RTC_ERR_WORKSPACE_RESOURCE_NOT_FOUND',
  'RTC_ERR_WORK_REFUSED',
];

/** Retired, never reuse. */
const EXPECTED_RETIRED = ['RTC_ERR_CACHE_CORRUPT'];

/**
 * Codes that no test names yet (they are raised, but no test checks that they are): the list may
 * only shrink. Each needs a failure that is hard to provoke (a disk that fails a write, a lock held
 * past its limit, an MCP tool call from inside the OS sandbox); name the code where a test reaches it.
 */
const UNTESTED_CODES = [
  'RTC_ERR_EVENTS_WRITE',
  'RTC_ERR_LEDGER_LOCKED',
  'RTC_ERR_NPM_LOCKFILE',
  'RTC_ERR_REVIEW_NOT_ALLOWED',
  'RTC_ERR_TOOL_RELAY',
  'RTC_ERR_TRACE_WRITE',
];

/** Files (project-relative) allowed to name a code without raising it: the list itself and its reference. */
const CATALOGUE = new Set(['kernel/errors.ts', 'cli/errors-doc.ts', 'docs/errors.md', 'test/kernel/errors.test.ts']);

/** Where each code is raised: a string or template literal holding it, other than a comparison (`=== 'RTC_ERR_X'`, `case 'RTC_ERR_X':`). */
function raisedCodes(): Map<string, string[]> {
  const raised = new Map<string, string[]>();
  for (const rel of sourceFiles(PROJECT_ROOT)) {
    if (CATALOGUE.has(rel)) continue;
    const text = readFileSync(path.join(PROJECT_ROOT, rel), 'utf8');
    if (!text.includes('RTC_ERR_')) continue;
    const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, /\.(m|c)?js$/.test(rel) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      const literalText = ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node) ? node.text : undefined;
      if (literalText !== undefined && !isComparison(node)) {
        for (const [code] of literalText.matchAll(/RTC_ERR_[A-Z0-9_]*[A-Z0-9]/g)) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          raised.set(code, [...(raised.get(code) ?? []), `${rel}:${line}`]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return raised;
}

function isComparison(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isCaseClause(parent)) return true;
  if (!ts.isBinaryExpression(parent)) return false;
  const op = parent.operatorToken.kind;
  return op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
}

/** Every text file of the checkout (not node_modules, caches or build output). */
function checkoutFiles(): string[] {
  return (readdirSync(PROJECT_ROOT, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => !/(^|\/)(node_modules|\.git|\.cache|\.build|\.scratch|bench\/out)(\/|$)/.test(f) && /\.(ts|mts|cts|js|mjs|cjs|md|ya?ml|json|sh)$/.test(f));
}

test(`the kernel has ${EXPECTED_CODES.length} error codes, pinned here in sorted order`, () => {
  assert.deepEqual([...EXPECTED_CODES].sort(), EXPECTED_CODES, 'EXPECTED_CODES is sorted');
  assert.deepEqual(Object.keys(ERROR_CODES).sort(), EXPECTED_CODES, 'a code was added, renamed or dropped: a shipped code is never renamed or dropped, only retired (kernel/errors.ts)');
  assert.deepEqual(Object.keys(RETIRED_ERROR_CODES).sort(), EXPECTED_RETIRED);
});

test('each key is its own code, follows RTC_ERR_<AREA>_<WHAT>, and has a one-line description; retired codes are not codes any more', () => {
  for (const [code, text] of Object.entries(ERROR_CODES)) {
    if (!BEFORE_THE_PATTERN.has(code)) assert.match(code, PATTERN);
    const error = kernelError(code as ErrorCode, 'what, where');
    assert.equal(error.code, code);
    assert.equal(error.toLine(), `${code}: what, where`);
    assert.ok(text.length > 10 && !text.includes('\n') && !/[.\s]$/.test(text), `${code}: "${text}"`);
  }
  for (const code of Object.keys(RETIRED_ERROR_CODES)) {
    assert.match(code, PATTERN);
    assert.ok(!(code in ERROR_CODES), `${code} is both retired and live`);
  }
});

test('each code is raised somewhere in the sources; a code raised nowhere is dead (retire it) or misses its raise', (t) => {
  const raised = raisedCodes();
  const never = EXPECTED_CODES.filter((c) => !raised.has(c));
  assert.deepEqual(never, [], 'codes no source raises');
  // an area prefix (`startsWith('RTC_ERR_LEDGER')`) is not a code
  const unknown = [...raised.keys()].filter((c) => !(c in ERROR_CODES) && !EXPECTED_CODES.some((code) => code.startsWith(`${c}_`))).sort();
  assert.deepEqual(unknown.map((c) => `${c} at ${raised.get(c)!.join(', ')}`), [], 'codes raised that kernel/errors.ts does not have');
  t.diagnostic(`${EXPECTED_CODES.length} codes, raised at ${[...raised.values()].reduce((n, at) => n + at.length, 0)} places`);
});

test('a retired code appears nowhere: not raised, not matched, not in a test or a doc other than the reference', () => {
  const files = checkoutFiles();
  assert.ok(files.length > 500, 'the checkout is read');
  for (const code of EXPECTED_RETIRED) {
    const found = files.filter((f) => !CATALOGUE.has(f) && readFileSync(path.join(PROJECT_ROOT, f), 'utf8').includes(code));
    assert.deepEqual(found, [], `${code} is retired, never reuse`);
  }
});

test('docs/errors.md is the reference cli/errors-doc.ts generates: one anchor per code, by area (run npm run schemas)', () => {
  const doc = readFileSync(ERRORS_DOC, 'utf8');
  assert.equal(doc, renderErrorsDoc(), 'docs/errors.md is stale: run npm run schemas');
  for (const code of [...EXPECTED_CODES, ...EXPECTED_RETIRED]) {
    assert.equal(doc.split('\n').filter((l) => l === `### \`${code}\``).length, 1, `${code} has one heading`);
    assert.ok(doc.includes(`](#${codeAnchor(code)})`), `${code} is linked from the areas list`);
  }
  const areas = errorAreas();
  assert.deepEqual(areas.flatMap((a) => a.codes.map((c) => c.code)).sort(), EXPECTED_CODES, 'every code is in an area');
  assert.ok(areas.every((a) => a.codes.length > 0 && a.area.length > 0));
});

test('an area or note comment in kernel/errors.ts is read as such: a // line starts an area, a doc comment is a note', () => {
  const areas = errorAreas(`export const ERROR_CODES = {\n  // start-up and environment\n  RTC_ERR_NODE_FLAGS: 'x',\n  /** why it exists */\n  RTC_ERR_ENV_INVALID: 'y',\n  // command line\n  RTC_ERR_CLI_USAGE: 'z',\n} as const;\n`);
  assert.deepEqual(areas, [
    { area: 'start-up and environment', codes: [{ code: 'RTC_ERR_NODE_FLAGS', text: ERROR_CODES.RTC_ERR_NODE_FLAGS }, { code: 'RTC_ERR_ENV_INVALID', text: ERROR_CODES.RTC_ERR_ENV_INVALID, note: 'why it exists' }] },
    { area: 'command line', codes: [{ code: 'RTC_ERR_CLI_USAGE', text: ERROR_CODES.RTC_ERR_CLI_USAGE }] },
  ]);
  assert.throws(() => errorAreas(`export const ERROR_CODES = {\n  RTC_ERR_NODE_FLAGS: 'x',\n} as const;\n`), /RTC_ERR_NODE_FLAGS comes before the first area comment/);
});

test('the codes no test names are listed, and the list only shrinks', (t) => {
  const tests = checkoutFiles().filter((f) => (isTestPath(f) || f.startsWith('test/')) && !CATALOGUE.has(f) && /\.(ts|mjs|js)$/.test(f) && !f.startsWith('test/fixtures/layering/'));
  const named = new Set(tests.flatMap((f) => readFileSync(path.join(PROJECT_ROOT, f), 'utf8').match(/RTC_ERR_[A-Z0-9_]*[A-Z0-9]/g) ?? []));
  const untested = EXPECTED_CODES.filter((c) => !named.has(c));
  t.diagnostic(`codes no test names: ${untested.length} of ${EXPECTED_CODES.length}`);
  assert.deepEqual(untested, UNTESTED_CODES, 'UNTESTED_CODES must be exactly the codes no test names: delete the ones a test now names; a new code comes with its test');
});
