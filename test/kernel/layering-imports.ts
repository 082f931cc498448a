/**
 * Every import of one source file, found with TypeScript's parser (not a regex, so strings and
 * comments that look like imports are not imports) and resolved to a project file. The forms:
 * static imports and re-exports (type-only when the whole declaration is `import type` /
 * `export type`), `import x = require()`, type positions `import('x').T`, dynamic `import()`,
 * `require()` / `require.resolve()` / a `createRequire(...)` function, `import.meta.resolve()`,
 * `new URL('lit', import.meta.url)`, and `path.join|resolve(ROOT, 'lit', …)` where ROOT is
 * PROJECT_ROOT, import.meta.dirname, __dirname or a constant of this file built the same way. The
 * last three count only when they name a code file (a path to data or a folder is not an import).
 * A package self-reference (`runtimectl/…`) resolves into the project; `#…` through package.json's
 * `imports`.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export type ImportForm = 'static' | 'dynamic' | 'require' | 'url' | 'path';

export interface FoundImport {
  /** Project-relative target file; for an unresolved first-party specifier, the specifier as written. */
  to: string;
  form: ImportForm;
  typeOnly: boolean;
  line: number;
  /**
   * `resolved`: a project file; `unresolved`: first-party but no such file; `computed`: a
   * non-literal import()/require(); `package`: a package or built-in (`to` is the specifier).
   */
  status: 'resolved' | 'unresolved' | 'computed' | 'package';
}

const CODE_EXT = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const JS_TO_TS: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

function isFile(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** Node/TypeScript resolution of a file path without extension guessing beyond what tsc accepts. */
function resolveFile(abs: string): string | undefined {
  if (isFile(abs)) return abs;
  const ext = path.extname(abs);
  for (const alt of JS_TO_TS[ext] ?? []) if (isFile(abs.slice(0, -ext.length) + alt)) return abs.slice(0, -ext.length) + alt;
  for (const suffix of ['.ts', '.js', '/index.ts', '/index.js']) if (isFile(abs + suffix)) return abs + suffix;
  return undefined;
}

type PackageJson = { name?: string; imports?: Record<string, unknown> };
const packageJsons = new Map<string, PackageJson>();

function packageJson(root: string): PackageJson {
  let pkg = packageJsons.get(root);
  if (!pkg) {
    const file = path.join(root, 'package.json');
    pkg = isFile(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageJson) : {};
    packageJsons.set(root, pkg);
  }
  return pkg;
}

/** A specifier is first-party when it is relative, absolute, a file: URL, a self-reference or a `#` import. */
function firstPartyPath(spec: string, fromDir: string, root: string): string | undefined | null {
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') return path.resolve(fromDir, spec);
  if (spec.startsWith('/')) return spec;
  if (spec.startsWith('file:')) return fileURLToPath(spec);
  const pkg = packageJson(root);
  const name = pkg.name ?? 'runtimectl';
  if (spec === name || spec.startsWith(`${name}/`)) return path.join(root, spec.slice(name.length));
  if (spec.startsWith('#')) {
    const mapped = pkg.imports?.[spec];
    return typeof mapped === 'string' ? path.join(root, mapped) : undefined;
  }
  return null; // a package or a built-in: not ours
}

function literal(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

function isImportMeta(node: ts.Node, prop: string): boolean {
  return ts.isPropertyAccessExpression(node) && node.name.text === prop && ts.isMetaProperty(node.expression) && node.expression.keywordToken === ts.SyntaxKind.ImportKeyword;
}

export function findImports(file: string, root: string): FoundImport[] {
  const text = readFileSync(file, 'utf8');
  const kind = /\.(m|c)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const dir = path.dirname(file);
  const found: FoundImport[] = [];
  const pathNames = new Set<string>(); // identifiers bound to node:path (default or namespace)
  const joinNames = new Set<string>(); // `join` / `resolve` imported by name from node:path
  const requireNames = new Set<string>(['require']);
  const constants = new Map<string, string>(); // const X = path.join(ROOT, 'lit') → its absolute path

  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

  const add = (node: ts.Node, spec: string | undefined, form: ImportForm, typeOnly: boolean) => {
    if (spec === undefined) {
      found.push({ to: '(computed)', form, typeOnly, line: lineOf(node), status: 'computed' });
      return;
    }
    const abs = firstPartyPath(spec, dir, root);
    if (abs === null) {
      found.push({ to: spec, form, typeOnly, line: lineOf(node), status: 'package' });
      return;
    }
    const target = abs === undefined ? undefined : resolveFile(abs);
    if (target && !path.relative(root, target).startsWith('..')) found.push({ to: path.relative(root, target), form, typeOnly, line: lineOf(node), status: 'resolved' });
    else if (!target) found.push({ to: spec, form, typeOnly, line: lineOf(node), status: 'unresolved' });
  };

  /** A URL or path that only counts when it names a code file. */
  const addPath = (node: ts.Node, abs: string, form: ImportForm) => {
    if (!CODE_EXT.test(abs)) return;
    const rel = path.relative(root, abs);
    if (rel.startsWith('..')) return;
    if (isFile(abs)) found.push({ to: rel, form, typeOnly: false, line: lineOf(node), status: 'resolved' });
    else found.push({ to: rel, form, typeOnly: false, line: lineOf(node), status: 'unresolved' });
  };

  /** The absolute path a root expression stands for, or undefined. */
  const rootOf = (node: ts.Expression): string | undefined => {
    if (ts.isIdentifier(node)) {
      if (node.text === 'PROJECT_ROOT') return root;
      if (node.text === '__dirname') return dir;
      return constants.get(node.text);
    }
    if (isImportMeta(node, 'dirname')) return dir;
    return undefined;
  };

  /** path.join/resolve(ROOT, 'a', 'b') → absolute path, when every part is known. */
  const joined = (call: ts.CallExpression): string | undefined => {
    const callee = call.expression;
    const isJoin =
      (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && pathNames.has(callee.expression.text) && ['join', 'resolve'].includes(callee.name.text)) ||
      (ts.isIdentifier(callee) && joinNames.has(callee.text));
    if (!isJoin || call.arguments.length === 0) return undefined;
    const base = rootOf(call.arguments[0]!);
    const parts = call.arguments.slice(1).map((a) => literal(a));
    if (base === undefined || parts.some((p) => p === undefined)) return undefined;
    return path.join(base, ...(parts as string[]));
  };

  /** new URL('lit', import.meta.url) → absolute path. */
  const urlPath = (node: ts.NewExpression): string | undefined => {
    if (!ts.isIdentifier(node.expression) || node.expression.text !== 'URL') return undefined;
    const [first, base] = node.arguments ?? [];
    const spec = literal(first);
    if (spec === undefined || !base || !isImportMeta(base, 'url')) return undefined;
    return fileURLToPath(new URL(spec, pathToFileURL(file)));
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const spec = literal(node.moduleSpecifier)!;
      if (spec === 'node:path' || spec === 'path') {
        const clause = node.importClause;
        if (clause?.name) pathNames.add(clause.name.text);
        if (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) pathNames.add(clause.namedBindings.name.text);
        if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings))
          for (const el of clause.namedBindings.elements) if (['join', 'resolve'].includes((el.propertyName ?? el.name).text)) joinNames.add(el.name.text);
      }
      add(node, spec, 'static', node.importClause?.isTypeOnly ?? false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node, literal(node.moduleSpecifier), 'static', node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, literal(node.moduleReference.expression), 'require', node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, literal(node.argument.literal), 'static', true);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const arg = node.arguments[0];
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(node, literal(arg), 'dynamic', false);
      else if (ts.isIdentifier(callee) && requireNames.has(callee.text)) add(node, literal(arg), 'require', false);
      else if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' && ts.isIdentifier(callee.expression) && requireNames.has(callee.expression.text))
        add(node, literal(arg), 'require', false);
      else if (ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire') add(node, literal(arg), 'require', false);
      else if (isImportMeta(callee, 'resolve') && literal(arg) !== undefined) {
        const abs = firstPartyPath(literal(arg)!, dir, root);
        if (abs) addPath(node, abs, 'url');
      } else {
        const abs = joined(node);
        if (abs) addPath(node, abs, 'path');
      }
    } else if (ts.isNewExpression(node)) {
      const abs = urlPath(node);
      if (abs) addPath(node, abs, 'url');
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const init = node.initializer;
      if (ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === 'createRequire') requireNames.add(node.name.text);
      const abs = ts.isCallExpression(init) ? joined(init) : ts.isNewExpression(init) ? urlPath(init) : undefined;
      if (abs) constants.set(node.name.text, abs);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
