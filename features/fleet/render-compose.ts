/**
 * The same fleet as one Compose file: a service per persona with its own named volume, a
 * read-only root, every capability dropped and no-new-privileges. The profile is a Compose
 * config (a file beside the compose file, mounted read-only); variables are listed by name
 * only, so Compose passes them from the operator's environment and no value is written.
 */
import { CONTAINER, POSTGRES_DSN_ENV, type PersonaDeployment } from './deployment.ts';

type Obj = Record<string, unknown>;

/** Path of a persona's profile beside the compose file. */
export function composeProfilePath(d: PersonaDeployment): string {
  return `profiles/${d.id}.yaml`;
}

export function composeDocument(deployments: readonly PersonaDeployment[]): Obj {
  const services: Obj = {};
  const volumes: Obj = {};
  const configs: Obj = {};
  for (const d of deployments) {
    const config = `${d.name}-profile`;
    const environment = [
      `RUNTIMECTL_CACHE_DIR=${CONTAINER.cacheDir}`,
      `SCIDEX_AGENT_STATE_DIR=${CONTAINER.stateDir}`,
      // A bare name: Compose takes the value from the operator's shell, never from this file.
      ...(d.postgres ? [POSTGRES_DSN_ENV] : []),
      ...d.secretEnv,
    ];
    services[d.name] = {
      image: d.image,
      command: d.args,
      restart: 'unless-stopped',
      user: `${CONTAINER.uid}:${CONTAINER.uid}`,
      read_only: true,
      cap_drop: ['ALL'],
      security_opt: ['no-new-privileges:true'],
      environment,
      volumes: [{ type: 'volume', source: `${d.name}-state`, target: CONTAINER.stateDir }],
      tmpfs: ['/tmp', CONTAINER.cacheDir],
      configs: [{ source: config, target: `${CONTAINER.profileDir}/${d.id}.yaml`, mode: 0o444 }],
      healthcheck: { test: ['CMD', 'runtimectl', ...d.healthArgs], interval: '60s', timeout: '20s', retries: 3, start_period: '300s' },
      stop_grace_period: '30s',
    };
    volumes[`${d.name}-state`] = {};
    configs[config] = { file: `./${composeProfilePath(d)}` };
  }
  return { name: 'runtimectl-fleet', services, volumes, configs };
}
