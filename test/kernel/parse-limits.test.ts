/**
 * One bad manifest is that manifest's named error, and nothing more (issue 12 item 15): every
 * parser failure (an alias bomb, a huge file, deep nesting, duplicate keys, non-UTF-8, binary,
 * a FIFO or a device where the file should be) of every YAML/JSON the kernel parses (plugin
 * manifests, persona profiles, runtime manifests, SKILL.md front matter) is one
 * RTC_ERR_MANIFEST_* line naming the file; other plugins load and other personas run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { isKernelError } from '../../kernel/errors.ts';
import { PARSE_LIMITS, parseYaml, readManifestFile } from '../../kernel/manifest/load.ts';
import { pluginManifestSchema } from '../../kernel/manifest/plugin-manifest.ts';
import { resolvePersona } from '../../features/profiles/load.ts';
import { scanPlugins } from '../../features/plugin-search/scan.ts';
import { loadSkillCatalog } from '../../features/skills/catalog.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { runCli } from '../support/cli.ts';
import { profile, run, tempDir } from '../../features/science-loop/test/helpers.ts';

function aliasBomb(levels: number, width: number, flow = true): string {
  const lines = [`l0: &l0 [${Array(width).fill('"lol"').join(',')}]`];
  for (let i = 1; i < levels; i++) {
    lines.push(flow ? `l${i}: &l${i} [${Array(width).fill(`*l${i - 1}`).join(',')}]` : `l${i}: &l${i}\n${Array(width).fill(`  - *l${i - 1}`).join('\n')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Each hostile manifest, as bytes or as a planting function (for files that are not files). */
const HOSTILE: Record<string, Buffer | ((file: string) => void)> = {
  'alias bomb (flow)': Buffer.from(aliasBomb(9, 9)),
  'alias bomb (block)': Buffer.from(aliasBomb(7, 10, false)),
  'alias bomb (mapping merge)': Buffer.from(`a: &a {x: 1, y: 2}\n${Array.from({ length: 200 }, (_, i) => `k${i}: *a`).join('\n')}\n`),
  'deep flow nesting': Buffer.from(`id: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`),
  'deep block nesting': Buffer.from(Array.from({ length: 400 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')),
  'duplicate keys': Buffer.from('id: tool.dup\nid: tool.dup2\n'),
  'duplicate keys in JSON': Buffer.from('{"id": "tool.a", "version": "1.0.0", "id": "tool.b"}'),
  'not UTF-8': Buffer.from([0x69, 0x64, 0x3a, 0x20, 0xc3, 0x28, 0x0a]),
  'binary (NUL bytes)': Buffer.concat([Buffer.from('id: tool.x\n'), Buffer.alloc(64)]),
  'huge file': Buffer.from(`description: "${'x'.repeat(PARSE_LIMITS.bytes + 10)}"\n`),
  'a FIFO': (file) => execFileSync('mkfifo', [file]),
  '/dev/zero': (file) => symlinkSync('/dev/zero', file),
  'a folder': (file) => mkdirSync(file),
  'empty document list': Buffer.from('---\n---\n---\n'),
};

function plant(file: string, how: Buffer | ((file: string) => void)): void {
  mkdirSync(path.dirname(file), { recursive: true });
  if (Buffer.isBuffer(how)) writeFileSync(file, how);
  else how(file);
}

for (const [kind, how] of Object.entries(HOSTILE)) {
  test(`a plugin.yaml that is ${kind}: refused with its file named; the plugin beside it loads`, () => {
    const root = tempDir('rtc-parse-');
    cpSync(path.join(PROJECT_ROOT, 'plugins', 'tool-skill-stats'), path.join(root, 'good'), { recursive: true });
    plant(path.join(root, 'bad', 'plugin.yaml'), how);
    const scan = scanPlugins(root);
    assert.deepEqual(scan.plugins.map((p) => p.manifest.id), ['tool.skill-stats']);
    assert.equal(scan.refused.length, 1);
    for (const r of scan.refused) {
      assert.match(r.error.code, /^RTC_ERR_MANIFEST_(YAML|NOT_FOUND|INVALID)$/);
      assert.match(r.error.message, /bad\/plugin\.yaml/);
      assert.equal(r.error.message.includes('\n'), false, 'one line');
    }
  });
}

test('a persona runs while a plugin beside its own is an alias bomb', async () => {
  const dir = tempDir('rtc-parse-run-');
  // The bomb is a folder on the plugin search path beside the built-in plugins the persona uses.
  const plugins = path.join(dir, 'plugins');
  plant(path.join(plugins, 'zz-bomb', 'plugin.yaml'), HOSTILE['alias bomb (flow)'] as Buffer);
  const p = profile(dir, 'calm', 'runtime: agent-calm');
  const [r] = await run([p], { stateDir: path.join(dir, 'state'), pluginPath: [plugins] });
  assert.equal(r!.refused, undefined, String(r!.refused));
  assert.equal(r!.stopped, undefined);
  assert.equal(r!.reports.length, 1);
});

test('a persona profile, a runtime manifest or a review policy with any of these is one line, never an internal error', async () => {
  const dir = tempDir('rtc-parse-cli-');
  for (const [kind, how] of Object.entries(HOSTILE)) {
    if (kind === 'a folder') continue;
    const file = path.join(dir, `${kind.replace(/[^a-z]+/g, '-')}.yaml`);
    plant(file, how);
    for (const argv of [
      ['run', '--persona', file, '--state-dir', path.join(dir, 'state'), '--cycles', '1'],
      ['runtime-manifest', 'check', file],
      ['proposals', 'submit', '--persona', 'jerome', '--kind', 'memory-promotion', '--text', 'x', '--evidence', `x@sha256:${'a'.repeat(64)}`, '--policy', file, '--state-dir', path.join(dir, 'state')],
    ]) {
      const out = await runCli(argv, { cwd: dir });
      assert.equal(out.status, 1, `${kind}: ${argv[0]}: ${out.stderr}`);
      assert.match(out.stderr, /^runtimectl: RTC_ERR_MANIFEST_(YAML|NOT_FOUND|INVALID): [^\n]+\n$/, `${kind}: ${argv[0]}: ${out.stderr}`);
    }
  }
});

test('a SKILL.md whose front matter is an alias bomb or binary is refused by field; the other skills load', async () => {
  const root = tempDir('rtc-parse-skills-');
  const good = path.join(root, 'good-skill');
  mkdirSync(good);
  writeFileSync(path.join(good, 'SKILL.md'), '---\nname: good-skill\ndescription: Fine.\n---\nBody.\n');
  const bodies: Record<string, Buffer> = {
    bomb: Buffer.from(`---\nname: bomb\ndescription: x\n${aliasBomb(8, 8)}---\nBody\n`),
    binary: Buffer.from('---\nname: binary\ndescription: "a\u0000b"\n---\nBody\n'),
    notutf: Buffer.concat([Buffer.from('---\nname: notutf\ndescription: '), Buffer.from([0xff, 0xfe]), Buffer.from('\n---\nBody\n')]),
    deep: Buffer.from(`---\nname: deep\ndescription: ${'['.repeat(1000)}${']'.repeat(1000)}\n---\nBody\n`),
  };
  for (const [name, bytes] of Object.entries(bodies)) {
    mkdirSync(path.join(root, name));
    writeFileSync(path.join(root, name, 'SKILL.md'), bytes);
  }
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  assert.deepEqual(catalog.skills.map((s) => s.name), ['good-skill']);
  assert.equal(catalog.refused.length, 4);
  for (const r of catalog.refused) assert.match(r.message, /SKILL\.md: \((front matter|file)\): /);
  assert.match(catalog.refused.find((r) => r.folder === 'bomb')!.reason, /alias bomb/);
  assert.match(catalog.refused.find((r) => r.folder === 'notutf')!.reason, /not UTF-8/);
});

test('random bytes as a manifest never give anything but a kernel error naming the file', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
      const file = path.join(tempDir('rtc-fuzz-'), 'plugin.yaml');
      writeFileSync(file, bytes);
      try {
        readManifestFile(pluginManifestSchema, file, path.dirname(file));
      } catch (error) {
        assert.ok(isKernelError(error), String(error));
        assert.ok(error.message.startsWith('plugin.yaml'), error.message);
      }
    }),
    { numRuns: 150 },
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (text) => {
      try {
        parseYaml(text, 'x.yaml');
      } catch (error) {
        assert.ok(isKernelError(error) && error.code === 'RTC_ERR_MANIFEST_YAML', String(error));
      }
    }),
    { numRuns: 300 },
  );
});

test('resolvePersona of an id whose profile is broken names the profile file', () => {
  const dir = tempDir('rtc-parse-id-');
  writeFileSync(path.join(dir, 'bombed.yaml'), aliasBomb(9, 9));
  assert.throws(() => resolvePersona('bombed', { dir }), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_MANIFEST_YAML' && /bombed\.yaml.*alias bomb/.test(e.message));
});
