/**
 * The Dockerfile cannot be built here (no Docker engine), so its structure is checked with a
 * real Dockerfile parser (dockerfile-ast, the one behind the Docker language server): two
 * stages, the native addons compiled in the build stage, a non-root numeric user in the image
 * that runs, exec-form entrypoint, nothing fetched by ADD, and every source folder the kernel
 * needs copied in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { PROJECT_ROOT } from '../../../kernel/version.ts';

const text = fs.readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(text);
const instructions = dockerfile.getInstructions();
const froms = dockerfile.getFROMs();
const args = (i: (typeof instructions)[number]) => i.getArguments().map((a) => a.getValue());

/** The instructions of each stage, in order. */
function stages() {
  const result: { name: string | undefined; image: string; body: typeof instructions }[] = [];
  for (const i of instructions) {
    if (i.getKeyword() === 'FROM') {
      const from = froms.find((f) => f.getRange()?.start.line === i.getRange().start.line)!;
      result.push({ name: from.getBuildStage() ?? undefined, image: from.getImage() ?? '', body: [] });
    } else result.at(-1)?.body.push(i);
  }
  return result;
}

test('two stages: the build stage compiles the native addons, the runtime stage has no compiler stage leftovers', () => {
  const [build, runtime, ...more] = stages();
  assert.equal(more.length, 0);
  assert.equal(build!.name, 'build');
  assert.match(build!.image, /^node:20(-|$)/, 'Node 20, the version isolated-vm 5 is built for');
  assert.match(runtime!.image, /^node:20-[a-z]+-slim$/);
  const buildRuns = build!.body.filter((i) => i.getKeyword() === 'RUN').map((i) => args(i).join(' '));
  assert.ok(buildRuns.some((r) => /npm ci\b.*--omit=dev/.test(r)), 'npm ci (which compiles isolated-vm) runs in the build stage');
  assert.ok(buildRuns.some((r) => /--no-node-snapshot bin\/runtimectl\.js --version/.test(r)), 'the build proves the kernel starts');
  // The precompiled CLI is built after the last source is copied and before the start check.
  const body = build!.body.map((i) => `${i.getKeyword()} ${args(i).join(' ')}`);
  const compile = body.findIndex((line) => /^RUN node bin\/build-cli\.mjs\b/.test(line));
  const lastSource = body.findLastIndex((line) => /^COPY (cli|kernel|features|plugins|sandboxes) /.test(line));
  const startCheck = body.findIndex((line) => /--version/.test(line));
  assert.ok(compile > lastSource && compile < startCheck, 'bin/build-cli.mjs runs after the sources are copied and before the start check');
  assert.ok(body.findIndex((line) => /^COPY bin /.test(line)) < body.findIndex((line) => /npm ci\b/.test(line)), 'bin/ is there for npm ci\'s prepare script');
  // dockerfile-ast keeps flags (--from, --chown) apart from the arguments.
  const copies = runtime!.body.filter((i) => i.getKeyword() === 'COPY').map((i) => i.getTextContent());
  assert.ok(copies.some((c) => /--from=build\b/.test(c)), 'the runtime stage copies the built tree from the build stage');
  for (const c of copies.filter((c) => c.includes('--from='))) assert.match(c, /--from=build\b/, `${c} names a defined stage`);
});

test('the image that runs: a non-root numeric user, an exec-form entrypoint, bubblewrap for the executor sandbox', () => {
  const runtime = stages().at(-1)!;
  const users = runtime.body.filter((i) => i.getKeyword() === 'USER').map((i) => args(i).join(''));
  assert.equal(users.length, 1);
  assert.match(users[0]!, /^[1-9]\d*:[1-9]\d*$/, 'numeric uid:gid so runAsNonRoot can verify it');
  const uid = users[0]!.split(':')[0];
  const lastUser = runtime.body.findLastIndex((i) => i.getKeyword() === 'USER');
  assert.ok(runtime.body.slice(lastUser).every((i) => i.getKeyword() !== 'RUN'), 'no RUN after dropping to the user');
  const entrypoint = runtime.body.find((i) => i.getKeyword() === 'ENTRYPOINT')!;
  assert.match(entrypoint.getTextContent(), /ENTRYPOINT \[".*"\]/, 'exec form, so SIGTERM reaches the kernel through tini');
  const runs = runtime.body.filter((i) => i.getKeyword() === 'RUN').map((i) => args(i).join(' ')).join('\n');
  assert.match(runs, /bubblewrap/);
  assert.match(runs, new RegExp(`useradd --uid ${uid}`));
  assert.ok(!/chown[^\n]*\/opt\/runtimectl/.test(runs), 'the code stays root-owned, read-only to the user');
});

test('nothing is fetched by ADD, and every folder the kernel loads is copied', () => {
  assert.equal(instructions.filter((i) => i.getKeyword() === 'ADD').length, 0);
  const copied = new Set(instructions.filter((i) => i.getKeyword() === 'COPY').flatMap((i) => args(i).filter((a) => !a.startsWith('--')).slice(0, -1)));
  for (const dir of fs.readdirSync(PROJECT_ROOT, { withFileTypes: true })) {
    if (!dir.isDirectory() || dir.name.startsWith('.') || ['node_modules', 'test', 'bench', 'docs', 'state'].includes(dir.name)) continue;
    assert.ok(copied.has(dir.name), `COPY ${dir.name}`);
  }
  const ignore = fs.readFileSync(path.join(PROJECT_ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const must of ['node_modules', '.cache', 'state', '.git']) assert.ok(ignore.includes(must), `.dockerignore has ${must}`);
});
