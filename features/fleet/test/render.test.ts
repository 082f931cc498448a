/**
 * `runtimectl fleet render`: the Kubernetes objects validate against the Kubernetes API
 * schemas (kubernetes-models), carry the source's hardening, reference secrets without ever
 * holding a value, and probe the persona with `runtimectl status`; the Compose file carries
 * the same; bad input is one line and writes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { runCli } from '../../../test/support/cli.ts';
import { listPersonaIds, PERSONAS_DIR } from '../../profiles/load.ts';

const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const SECRET_VALUE = 'sk-proj-fleet-render-never-writes-this-1234567890';

/** A profile that hands its plugins two exact variables and one prefix pattern. */
function profileWithEnv(dir: string): string {
  const text = fs.readFileSync(path.join(PERSONAS_DIR, 'hypatia.yaml'), 'utf8').replace(/^id: hypatia$/m, 'id: keyholder_1');
  const file = path.join(dir, 'keyholder_1.yaml');
  fs.writeFileSync(file, `${text.replace(/^env:.*$/m, '')}\nenv: [OPENAI_API_KEY, HF_TOKEN, AWS_*]\n`);
  return file;
}

function walk(value: unknown, visit: (key: string, v: unknown) => void): void {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) (visit(k, v), walk(v, visit));
}

test('kubernetes: every shipped persona gets a ConfigMap and a one-replica StatefulSet that validate against the API schemas', async () => {
  const out = path.join(tmp('rtc-fleet-'), 'k8s');
  const r = await runCli(['fleet', 'render', '--target', 'kubernetes', '--out', out, '--namespace', 'science', '--image', 'registry.example/runtimectl:0.1.0'], { env: { OPENAI_API_KEY: SECRET_VALUE } });
  assert.equal(r.status, 0, r.stderr);
  const ids = listPersonaIds();
  assert.ok(ids.length >= 3);
  const kustomization = parse(fs.readFileSync(path.join(out, 'kustomization.yaml'), 'utf8'));
  assert.deepEqual(kustomization.resources, ids.map((id) => `persona-${id}.yaml`));
  for (const id of ids) {
    const docs = parseAllDocuments(fs.readFileSync(path.join(out, `persona-${id}.yaml`), 'utf8')).map((d) => d.toJS());
    assert.deepEqual(docs.map((d) => d.kind), ['ConfigMap', 'StatefulSet']);
    const [cm, sts] = docs;
    new ConfigMap(cm).validate();
    new StatefulSet(sts).validate();
    assert.equal(cm.metadata.namespace, 'science');
    assert.equal(cm.data[`${id}.yaml`], fs.readFileSync(path.join(PERSONAS_DIR, `${id}.yaml`), 'utf8'), 'the profile is mounted byte for byte');
    assert.equal(sts.spec.replicas, 1);
    assert.equal(sts.spec.volumeClaimTemplates[0].metadata.name, 'state');
    const pod = sts.spec.template.spec;
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
    assert.equal(pod.automountServiceAccountToken, false);
    const [c] = pod.containers;
    assert.equal(c.image, 'registry.example/runtimectl:0.1.0');
    assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.equal(c.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(c.args, ['run', '--persona', `/etc/runtimectl/persona/${id}.yaml`, '--state-dir', '/state']);
    assert.deepEqual(c.livenessProbe.exec.command.slice(0, 4), ['runtimectl', 'status', '--persona', id]);
    assert.deepEqual(c.startupProbe.exec.command, c.livenessProbe.exec.command);
    // Every writable path is a volume: the read-only root holds nothing the kernel writes.
    assert.deepEqual(c.volumeMounts.filter((m: any) => !m.readOnly).map((m: any) => m.mountPath).sort(), ['/state', '/tmp', '/var/cache/runtimectl']);
    walk(sts, (key) => assert.notEqual(key, 'hostPath', `${id}: no host path`));
  }
  for (const file of fs.readdirSync(out)) assert.ok(!fs.readFileSync(path.join(out, file), 'utf8').includes(SECRET_VALUE));
});

test("kubernetes: a profile's variables and the Postgres DSN are secret references, never values", async () => {
  const dir = tmp('rtc-fleet-env-');
  const file = profileWithEnv(dir);
  const r = await runCli(['fleet', 'render', '--target', 'kubernetes', '--personas', file, '--postgres-secret', 'fleet-postgres'], {
    cwd: dir,
    env: { OPENAI_API_KEY: SECRET_VALUE, HF_TOKEN: SECRET_VALUE },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(!r.stdout.includes(SECRET_VALUE));
  const sts = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((d) => d.kind === 'StatefulSet');
  new StatefulSet(sts).validate();
  assert.equal(sts.metadata.name, 'persona-keyholder-1', 'an "_" in the id becomes "-" in object names');
  const [c] = sts.spec.template.spec.containers;
  const byName = Object.fromEntries(c.env.map((e: any) => [e.name, e]));
  assert.deepEqual(byName.OPENAI_API_KEY.valueFrom.secretKeyRef, { name: 'persona-keyholder-1-env', key: 'OPENAI_API_KEY', optional: true });
  assert.deepEqual(byName.HF_TOKEN.valueFrom.secretKeyRef, { name: 'persona-keyholder-1-env', key: 'HF_TOKEN', optional: true });
  assert.deepEqual(byName.RUNTIMECTL_POSTGRES_DSN.valueFrom.secretKeyRef, { name: 'fleet-postgres', key: 'dsn' });
  assert.deepEqual(c.envFrom, [{ secretRef: { name: 'persona-keyholder-1-env', optional: true } }], 'a prefix pattern offers the persona secret whole');
  for (const e of c.env) if (!['RUNTIMECTL_CACHE_DIR', 'SCIDEX_AGENT_STATE_DIR'].includes(e.name)) assert.equal(e.value, undefined, `${e.name} has no literal value`);
});

test('compose: one hardened service and volume per persona, profiles beside it, variables by name only', async () => {
  const dir = tmp('rtc-fleet-compose-');
  const file = profileWithEnv(dir);
  const out = path.join(dir, 'out');
  const r = await runCli(['fleet', 'render', '--target', 'compose', '--personas', `jerome,${file}`, '--out', out], { cwd: dir, env: { OPENAI_API_KEY: SECRET_VALUE } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /warning: persona keyholder_1: env AWS_\* is a prefix pattern/);
  const compose = parse(fs.readFileSync(path.join(out, 'compose.yaml'), 'utf8'));
  assert.deepEqual(Object.keys(compose.services).sort(), ['persona-jerome', 'persona-keyholder-1']);
  for (const [name, s] of Object.entries<any>(compose.services)) {
    assert.equal(s.read_only, true);
    assert.deepEqual(s.cap_drop, ['ALL']);
    assert.deepEqual(s.security_opt, ['no-new-privileges:true']);
    assert.equal(s.user, '10001:10001');
    assert.deepEqual(s.volumes, [{ type: 'volume', source: `${name}-state`, target: '/state' }], 'a named volume, no bind mount');
    assert.equal(s.healthcheck.test[1], 'runtimectl');
    const config = compose.configs[s.configs[0].source];
    assert.ok(fs.existsSync(path.join(out, config.file)), 'the profile file is written beside compose.yaml');
  }
  const keyholder = compose.services['persona-keyholder-1'];
  assert.ok(keyholder.environment.includes('OPENAI_API_KEY'), 'a bare name: Compose takes the value from the shell');
  for (const f of ['compose.yaml', 'profiles/keyholder_1.yaml', 'profiles/jerome.yaml']) assert.ok(!fs.readFileSync(path.join(out, f), 'utf8').includes(SECRET_VALUE));
});

test('bad input: one line, exit 2, nothing written', async () => {
  const dir = tmp('rtc-fleet-bad-');
  const full = path.join(dir, 'full');
  fs.mkdirSync(full);
  fs.writeFileSync(path.join(full, 'keep.txt'), 'mine');
  const cases: Array<[string[], RegExp]> = [
    [['fleet', 'render'], /--target is required/],
    [['fleet', 'render', '--target', 'nomad'], /--target nomad: must be one of kubernetes, compose/],
    [['fleet', 'render', '--target', 'compose'], /needs --out DIR/],
    [['fleet', 'render', '--target', 'kubernetes', '--image', 'Bad Image!'], /--image "Bad Image!": not an image reference/],
    [['fleet', 'render', '--target', 'kubernetes', '--state-size', 'lots'], /--state-size "lots"/],
    [['fleet', 'render', '--target', 'kubernetes', '--personas', 'nobody'], /--persona nobody: no profile nobody.yaml/],
    [['fleet', 'render', '--target', 'kubernetes', '--out', full], /is not empty/],
    [['fleet', 'render', '--target', 'kubernetes', '--bogus'], /unknown option --bogus/],
  ];
  for (const [argv, message] of cases) {
    const r = await runCli(argv, { cwd: dir });
    assert.notEqual(r.status, 0, argv.join(' '));
    assert.match(r.stderr, message, argv.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  }
  assert.deepEqual(fs.readdirSync(full), ['keep.txt']);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['full']);
});
