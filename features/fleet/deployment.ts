/**
 * What one persona needs to run in its own container, whatever the orchestrator: the image,
 * the command line, the profile text (mounted read-only), the environment it is handed (by
 * reference only: names, never values), its state volume and its health check. Both
 * renderers (Kubernetes, Compose) start from this one description, so the two targets
 * cannot drift apart on what a persona gets.
 *
 * The hardening is the source's (000_6587f3dd4bf5a928.txt: one persona per container, its
 * own volume, read-only root, cap-drop=ALL, no-new-privileges, no host bind mounts).
 */
import { readFileSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';

/** Where things live inside the image and the container (the Dockerfile creates them). */
export const CONTAINER = {
  /** The checkout inside the image. */
  appDir: '/opt/runtimectl',
  /** The persona's state volume. */
  stateDir: '/state',
  /** The profile, mounted read-only from a ConfigMap / Compose config. */
  profileDir: '/etc/runtimectl/persona',
  /** The bundle and code cache: written only by the kernel, an emptyDir / tmpfs per pod. */
  cacheDir: '/var/cache/runtimectl',
  /** The non-root user the image defines (uid = gid). */
  uid: 10001,
} as const;

/** The environment variable through which a Postgres-backed persona gets its DSN. */
export const POSTGRES_DSN_ENV = 'RUNTIMECTL_POSTGRES_DSN';

export interface PersonaDeployment {
  /** The persona id: names the StatefulSet / service and its volume. */
  id: string;
  /** `persona-<id>`: a DNS-1123 name safe for every object the persona gets. */
  name: string;
  image: string;
  /** The profile's own bytes, as mounted in the container. */
  profileText: string;
  profileFile: string;
  /** Argument vector after the image's entrypoint (`runtimectl`). */
  args: string[];
  /** Variables the profile hands its plugins, by exact name: each a reference to a secret key. */
  secretEnv: string[];
  /** Prefix patterns from the profile (`AWS_*`): the whole secret is offered, the kernel filters. */
  secretEnvPrefixes: string[];
  /** Name of the Secret (Kubernetes) holding this persona's variables. */
  secretName: string;
  /** A Postgres DSN reference, when the persona's state lives in a shared Postgres. */
  postgres?: { secretName: string; key: string };
  /** The health check's argument vector (after `runtimectl`). */
  healthArgs: string[];
  /** Seconds between cycles: the health check allows three missed cycles. */
  cycleSeconds: number;
  stateSize: string;
}

export interface DeploymentOptions {
  image: string;
  /** Size of the persona's state volume claim (Kubernetes quantity). */
  stateSize: string;
  /** A Secret holding the shared Postgres DSN under key `dsn`, when the fleet uses one. */
  postgresSecret?: string;
}

// An image reference: [registry[:port]/]path[:tag][@sha256:digest], lowercase path.
const IMAGE_PATTERN = /^(?:[a-z0-9.-]+(?::\d+)?\/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
const QUANTITY_PATTERN = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|K|M|G|T|P)?$/;
const SECRET_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]{0,251}[a-z0-9])?$/;

export function checkImage(image: string): string {
  if (!IMAGE_PATTERN.test(image)) throw kernelError('RTC_ERR_CLI_USAGE', `--image ${JSON.stringify(image)}: not an image reference such as registry.example/runtimectl:0.1.0`);
  return image;
}

export function checkQuantity(flag: string, value: string): string {
  if (!QUANTITY_PATTERN.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--${flag} ${JSON.stringify(value)}: not a size such as 10Gi`);
  return value;
}

export function checkSecretName(flag: string, value: string): string {
  if (!SECRET_NAME_PATTERN.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--${flag} ${JSON.stringify(value)}: not a Kubernetes object name (lowercase letters, digits, "-")`);
  return value;
}

/** A persona id allows "_", which object names do not: map it, and keep names short. */
function objectName(id: string): string {
  const name = `persona-${id.replace(/_/g, '-')}`.replace(/-+$/, '');
  // StatefulSet names become pod-name labels (63 characters with the "-0" ordinal).
  if (name.length > 52) throw kernelError('RTC_ERR_CLI_USAGE', `persona ${id}: its id is too long for a Kubernetes object name (${name.length} > 52 characters)`);
  return name;
}

export function personaDeployment(persona: LoadedPersona, options: DeploymentOptions): PersonaDeployment {
  const { profile } = persona;
  const name = objectName(profile.id);
  const profileInContainer = `${CONTAINER.profileDir}/${profile.id}.yaml`;
  const stateFlag = ['--state-dir', CONTAINER.stateDir];
  const cycleSeconds = profile.cadence.cycle_seconds;
  return {
    id: profile.id,
    name,
    image: options.image,
    profileText: readFileSync(persona.file, 'utf8'),
    profileFile: persona.file,
    args: ['run', '--persona', profileInContainer, ...stateFlag],
    secretEnv: profile.env.filter((v) => !v.endsWith('*')),
    secretEnvPrefixes: profile.env.filter((v) => v.endsWith('*')),
    secretName: `${name}-env`,
    ...(options.postgresSecret ? { postgres: { secretName: options.postgresSecret, key: 'dsn' } } : {}),
    // Three missed cycles (and at least ten minutes) before the persona counts as stuck:
    // a quiet persona still writes a cycle event every cycle, so a silent log means a hang.
    healthArgs: ['status', '--persona', profile.id, ...stateFlag, '--stale-after', String(Math.max(600, Math.ceil(cycleSeconds * 3)))],
    cycleSeconds,
    stateSize: options.stateSize,
  };
}
