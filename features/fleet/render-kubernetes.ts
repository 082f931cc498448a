/**
 * Kubernetes objects for one persona: a ConfigMap with its profile and a StatefulSet of one
 * replica whose volume claim template gives the persona its own state volume. One replica,
 * because a persona has exactly one writer (the kernel also refuses a second one); a
 * StatefulSet, because its pod keeps its name and its volume across restarts.
 *
 * Secrets appear only as references (secretKeyRef / secretRef): the operator creates them;
 * no value ever passes through this renderer.
 */
import { CONTAINER, POSTGRES_DSN_ENV, type PersonaDeployment } from './deployment.ts';

type Obj = Record<string, unknown>;

const RESTRICTED_CONTAINER_SECURITY = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  runAsUser: CONTAINER.uid,
  runAsGroup: CONTAINER.uid,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

function labels(d: PersonaDeployment): Record<string, string> {
  return { 'app.kubernetes.io/name': 'runtimectl', 'app.kubernetes.io/instance': d.name, 'runtimectl.dev/persona': d.id };
}

function metadata(d: PersonaDeployment, name: string, namespace: string | undefined): Obj {
  return { name, ...(namespace ? { namespace } : {}), labels: labels(d) };
}

function env(d: PersonaDeployment): Obj[] {
  const vars: Obj[] = [
    { name: 'RUNTIMECTL_CACHE_DIR', value: CONTAINER.cacheDir },
    { name: 'SCIDEX_AGENT_STATE_DIR', value: CONTAINER.stateDir },
  ];
  if (d.postgres) vars.push({ name: POSTGRES_DSN_ENV, valueFrom: { secretKeyRef: { name: d.postgres.secretName, key: d.postgres.key } } });
  // optional: a variable the profile may pass but the operator has not set is simply absent,
  // as it is on a host; the kernel decides what a missing key means (a refused executor, say).
  for (const name of d.secretEnv) vars.push({ name, valueFrom: { secretKeyRef: { name: d.secretName, key: name, optional: true } } });
  return vars;
}

function probe(d: PersonaDeployment, periodSeconds: number, failureThreshold: number): Obj {
  return { exec: { command: ['runtimectl', ...d.healthArgs] }, periodSeconds, timeoutSeconds: 20, failureThreshold };
}

export function kubernetesObjects(d: PersonaDeployment, namespace?: string): Obj[] {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(d, `${d.name}-profile`, namespace),
    data: { [`${d.id}.yaml`]: d.profileText },
  };
  const container: Obj = {
    name: 'runtimectl',
    image: d.image,
    imagePullPolicy: 'IfNotPresent',
    args: d.args,
    env: env(d),
    ...(d.secretEnvPrefixes.length > 0 ? { envFrom: [{ secretRef: { name: d.secretName, optional: true } }] } : {}),
    securityContext: RESTRICTED_CONTAINER_SECURITY,
    volumeMounts: [
      { name: 'state', mountPath: CONTAINER.stateDir },
      { name: 'profile', mountPath: CONTAINER.profileDir, readOnly: true },
      { name: 'cache', mountPath: CONTAINER.cacheDir },
      { name: 'tmp', mountPath: '/tmp' },
    ],
    // The first cycle runs at start: allow five minutes for it (install of a cold cache).
    startupProbe: probe(d, 10, 30),
    livenessProbe: probe(d, 60, 3),
    resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '2Gi' } },
  };
  const statefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: metadata(d, d.name, namespace),
    spec: {
      replicas: 1,
      serviceName: d.name,
      selector: { matchLabels: { 'runtimectl.dev/persona': d.id } },
      // One writer per persona: the old pod is gone before the new one starts.
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate' },
      template: {
        metadata: { labels: labels(d) },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          // Kubernetes' default; the kernel stops within its own grace (run's SIGTERM handling).
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: CONTAINER.uid,
            runAsGroup: CONTAINER.uid,
            fsGroup: CONTAINER.uid,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [container],
          volumes: [
            { name: 'profile', configMap: { name: `${d.name}-profile` } },
            { name: 'cache', emptyDir: {} },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'state', labels: labels(d) },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: d.stateSize } } },
        },
      ],
    },
  };
  return [configMap, statefulSet];
}
