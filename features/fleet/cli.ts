/**
 * `runtimectl fleet render --target kubernetes|compose`: writes what an orchestrator needs to
 * run each persona in its own hardened container. It only writes files (or prints them): it
 * never talks to a cluster or a Docker engine, and never reads a secret's value.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { kernelError } from '../../kernel/errors.ts';
import { listPersonaIds, PERSONAS_DIR, resolvePersonas } from '../profiles/load.ts';
import { KERNEL_VERSION } from '../../kernel/version.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { checkImage, checkQuantity, checkSecretName, personaDeployment, type PersonaDeployment } from './deployment.ts';
import { kubernetesObjects } from './render-kubernetes.ts';
import { composeDocument, composeProfilePath } from './render-compose.ts';

const TARGETS = ['kubernetes', 'compose'] as const;
type Target = (typeof TARGETS)[number];

const USAGE = `Usage: runtimectl fleet render --target kubernetes|compose [--personas ID,...] [--image IMAGE]
                               [--out DIR] [--namespace NS] [--state-size SIZE]
                               [--postgres-secret NAME] [--json]

Writes, for each persona, what an orchestrator needs to run it alone in a hardened container
(read-only root, every capability dropped, no privilege escalation, non-root user, seccomp
RuntimeDefault, its own state volume, no host path):

  kubernetes  per persona a ConfigMap with its profile and a StatefulSet of one replica with a
              volume claim for its state, probes that run "runtimectl status --persona ID";
              files DIR/persona-ID.yaml and DIR/kustomization.yaml (kubectl apply -k DIR)
  compose     DIR/compose.yaml with a service and a named volume per persona, and the profiles
              under DIR/profiles/

Variables a profile hands its plugins (its "env" list) appear as references only: a Secret key
"persona-ID-env/NAME" (Kubernetes) or a bare name Compose takes from the operator's shell.
Create the Secrets yourself; no value is ever written.

Options:
  --target T            kubernetes or compose (required)
  --personas ID,...     persona ids or profile files (default: every profile in policies/personas)
  --image IMAGE         the image to run (default runtimectl:${KERNEL_VERSION}; build it with the Dockerfile)
  --out DIR             a new or empty folder to write into (required for compose; kubernetes
                        prints one multi-document YAML on stdout without it)
  --namespace NS        Kubernetes namespace for every object
  --state-size SIZE     the state volume claim's size (default 10Gi)
  --postgres-secret S   a Secret with key "dsn" holding the shared Postgres DSN, handed to each
                        persona as RUNTIMECTL_POSTGRES_DSN
  --json                print {target, out, files, personas} instead of lines
`;

function listOption(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v.length > 0);
}

function checkOutDir(dir: string, display: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw kernelError('RTC_ERR_CLI_USAGE', `--out ${display}: exists and is not a folder`);
  if (readdirSync(dir).length > 0) throw kernelError('RTC_ERR_CLI_USAGE', `--out ${display}: the folder is not empty (nothing is overwritten; choose a new folder)`);
}

function yamlDocuments(objects: readonly unknown[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

interface Rendered {
  files: { relative: string; text: string }[];
  stdout?: string;
  warnings: string[];
}

function renderKubernetes(deployments: PersonaDeployment[], namespace: string | undefined, toFiles: boolean): Rendered {
  const perPersona = deployments.map((d) => ({ relative: `${d.name}.yaml`, text: yamlDocuments(kubernetesObjects(d, namespace)) }));
  if (!toFiles) return { files: [], stdout: perPersona.map((f) => f.text).join('---\n'), warnings: [] };
  const kustomization = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: perPersona.map((f) => f.relative) };
  return { files: [...perPersona, { relative: 'kustomization.yaml', text: stringify(kustomization) }], warnings: [] };
}

function renderCompose(deployments: PersonaDeployment[]): Rendered {
  const warnings = deployments
    .filter((d) => d.secretEnvPrefixes.length > 0)
    .map((d) => `persona ${d.id}: env ${d.secretEnvPrefixes.join(', ')} is a prefix pattern; Compose passes variables by exact name only, so list them in compose.yaml yourself`);
  const files = [
    { relative: 'compose.yaml', text: stringify(composeDocument(deployments), { lineWidth: 0 }) },
    ...deployments.map((d) => ({ relative: composeProfilePath(d), text: d.profileText })),
  ];
  return { files, warnings };
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      target: { type: 'string' },
      personas: { type: 'string', multiple: true },
      image: { type: 'string' },
      out: { type: 'string' },
      namespace: { type: 'string' },
      'state-size': { type: 'string' },
      'postgres-secret': { type: 'string' },
      json: { type: 'boolean' },
    },
    'fleet render',
    false,
  );
  const target = values.target as Target | undefined;
  if (target === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--target is required (kubernetes or compose); see "runtimectl fleet render --help"');
  if (!TARGETS.includes(target)) throw kernelError('RTC_ERR_CLI_USAGE', `--target ${target}: must be one of ${TARGETS.join(', ')}`);
  if (target === 'compose' && values.out === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--target compose needs --out DIR (the profiles are files beside compose.yaml)');
  const namespace = values.namespace === undefined ? undefined : checkSecretName('namespace', values.namespace);
  const options = {
    image: checkImage(values.image ?? `runtimectl:${KERNEL_VERSION}`),
    stateSize: checkQuantity('state-size', values['state-size'] ?? '10Gi'),
    ...(values['postgres-secret'] ? { postgresSecret: checkSecretName('postgres-secret', values['postgres-secret']) } : {}),
  };
  const refs = listOption(values.personas);
  const personas = resolvePersonas(refs.length > 0 ? refs : listPersonaIds(PERSONAS_DIR), { cwd: io.cwd });
  if (personas.length === 0) throw kernelError('RTC_ERR_CLI_USAGE', 'no persona to render (policies/personas is empty; name profiles with --personas)');
  const deployments = personas.map((p) => personaDeployment(p, options));

  const outDir = values.out === undefined ? undefined : path.resolve(io.cwd, values.out);
  if (outDir) checkOutDir(outDir, values.out!);
  const rendered = target === 'kubernetes' ? renderKubernetes(deployments, namespace, outDir !== undefined) : renderCompose(deployments);
  for (const warning of rendered.warnings) io.stderr(`runtimectl fleet render: warning: ${warning}\n`);
  if (outDir) {
    for (const file of rendered.files) {
      const full = path.join(outDir, file.relative);
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, file.text, { flag: 'wx' });
    }
  }
  if (values.json) {
    printJson(io, { target, out: outDir ?? null, files: rendered.files.map((f) => f.relative), personas: deployments.map((d) => d.id), warnings: rendered.warnings });
  } else if (rendered.stdout !== undefined) {
    io.stdout(rendered.stdout);
  } else {
    io.stdout(`wrote ${rendered.files.length} files for ${deployments.length} personas (${target}) to ${values.out}\n`);
  }
  return 0;
}

export const fleetRenderCommand: Command = {
  path: ['fleet', 'render'],
  summary: 'write Kubernetes or Compose files that run each persona in its own hardened container',
  usage: USAGE,
  run,
};
