import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { KernelError } from '../../../kernel/errors.ts';
import { listPersonaIds, PERSONAS_DIR, resolvePersona, resolvePersonas } from '../load.ts';
import { HarnessCatalog } from '../harness-catalog.ts';
import { tempDir } from '../../science-loop/test/helpers.ts';

const HARNESSES = new HarnessCatalog();
const kindOf = (profile: { harness?: string; runtime: string }) => HARNESSES.forProfile(profile).manifest.runtime_kind;

test('every shipped profile loads: three or more canonical personas and the minimax, operon and rosalind harnesses', () => {
  const personas = resolvePersonas(listPersonaIds());
  const canonical = personas.filter((p) => kindOf(p.profile) === 'canonical');
  const harness = personas.filter((p) => kindOf(p.profile) === 'compatibility_harness');
  assert.ok(canonical.length >= 3, `canonical: ${canonical.map((p) => p.profile.id)}`);
  for (const p of canonical) assert.equal(p.profile.runtime, `agent-${p.profile.id}`);
  assert.deepEqual(harness.map((p) => p.profile.runtime).sort(), ['minimax', 'operon', 'rosalind']);
  for (const p of personas) {
    assert.match(readFileSync(p.file, 'utf8'), /^# yaml-language-server: \$schema=\.\.\/\.\.\/schemas\/persona-profile\.schema\.json/);
  }
});

test('a bad profile is refused with its file, field path and reason', () => {
  const dir = tempDir();
  const cases: [string, RegExp][] = [
    ['id: Bad Id\nruntime: agent-x\n', /bad\.yaml: id: lowercase letters/],
    ['id: bad\nruntime: agent-x\nphases: [lunch]\n', /bad\.yaml: phases\[0\]: /],
    ['id: bad\nruntime: agent-x\nbudget: { daily_tokens: -1 }\n', /bad\.yaml: budget\.daily_tokens: /],
    ['id: bad\nruntime: agent-x\nbindings: [root]\n', /bad\.yaml: bindings\[0\]: /],
    ['id: bad\nruntime: agent-x\nallow: { run: yes }\n', /bad\.yaml: allow\.run: /],
    ['id: bad\nruntime: agent-x\nbudgets: {}\n', /bad\.yaml: budgets: unknown key/],
  ];
  for (const [text, message] of cases) {
    writeFileSync(path.join(dir, 'bad.yaml'), text);
    assert.throws(() => resolvePersona(path.join(dir, 'bad.yaml'), { cwd: dir }), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_MANIFEST_INVALID' && message.test(e.message), text);
  }
});

test('personas are found by id or by file; an unknown id lists the known ones; one id twice is refused', () => {
  assert.equal(resolvePersona('jerome').profile.id, 'jerome');
  assert.equal(resolvePersona(path.join(PERSONAS_DIR, 'operon.yaml')).profile.runtime, 'operon');
  assert.throws(() => resolvePersona('nobody'), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_PERSONA_NOT_FOUND' && /have: .*jerome/.test(e.message));
  assert.throws(() => resolvePersonas(['jerome', path.join(PERSONAS_DIR, 'jerome.yaml')]), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_PERSONA_DUPLICATE');
});

test('no code compares a persona id or a harness name: only profile fields and manifests decide', () => {
  // A guard against special cases creeping in: no shipped persona id appears in kernel, feature or plugin code.
  const repo = path.resolve(import.meta.dirname, '..', '..', '..');
  const files = ['kernel', 'features', 'plugins', 'cli']
    .flatMap((dir) => (readdirSync(path.join(repo, dir), { recursive: true }) as string[]).map((f) => path.join(dir, f)))
    .filter((f) => f.endsWith('.ts') && !f.split(path.sep).includes('test'))
    .map((f) => path.join(repo, f));
  const root = repo;
  const ids = listPersonaIds();
  // Harness names in the kernel too (codex and claude are also program names, which executors may name).
  const harnesses = HARNESSES.ids();
  assert.ok(harnesses.includes('continuous-science-loop') && harnesses.includes('operon'), 'the harnesses are read');
  for (const file of files) {
    // code only: comments may use a persona as an example
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const names = path.relative(root, file).startsWith('kernel') ? [...ids, ...harnesses] : ids;
    for (const id of names) assert.ok(!new RegExp(`['"\`]${id}['"\`]`).test(text), `${path.relative(root, file)} names persona or harness "${id}"`);
  }
});
