import { OVERLAYS, find, kubectlVersion, render, type K8sObject } from './support/kustomize.js';
import { validateObject } from './support/k8s-models.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROOT, SERVICES } from './support/repo.js';
import { bullPrefix } from '../../packages/service-kit/dist/index.js';
import { QUEUES } from '../../packages/contracts/dist/index.js';
import { DEFAULT_GATEWAY_METRICS_PORT as GATEWAY_METRICS_PORT } from '../../apps/gateway/dist/config.js';
import { DEFAULT_INTERRUPT_GRACE_MS as EXECUTOR_INTERRUPT_GRACE_DEFAULT_MS } from '../../apps/executor/dist/data/interrupts.js';

interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  envFrom?: unknown[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
}
interface Spread {
  topologyKey: string;
  maxSkew: number;
  whenUnsatisfiable: string;
  labelSelector: unknown;
  matchLabelKeys?: string[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  topologySpreadConstraints?: Spread[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
}
const podOf = (o: K8sObject) => (o.spec as { template: { spec: PodSpec } }).template.spec;

beforeAll(() => {
  expect(kubectlVersion()).toMatch(/Client Version/);
});

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(`k8s/overlays/${overlay}`);
  });

  it('renders, and every object validates against the Kubernetes v1.36 OpenAPI schemas', () => {
    expect(objects.length).toBeGreaterThan(20);
    const validated = objects.filter((o) => validateObject(o));
    expect(validated.length).toBeGreaterThan(20);
    const namespaces = new Set(objects.map((o) => o.metadata.namespace));
    expect(namespaces).toEqual(new Set([overlay === 'prod' ? 'conduit' : 'conduit-dev']));
  });

  it('a Deployment, a Service and a PodDisruptionBudget per service, and nothing unexpected', () => {
    const deployments = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    expect(deployments.sort()).toEqual(SERVICES.map((s) => s.name).sort());
    for (const { name, port } of SERVICES) {
      const service = find(objects, 'Service', name).spec as {
        ports: { port: number; targetPort: string }[];
        type?: string;
      };
      expect(service.ports).toEqual([expect.objectContaining({ port, targetPort: 'http' })]);
      expect(service.type ?? 'ClusterIP').toBe('ClusterIP');
      const pdb = find(objects, 'PodDisruptionBudget', name).spec as { selector: unknown };
      expect(pdb.selector).toEqual({ matchLabels: { 'app.kubernetes.io/name': name } });
    }
  });

  it.each(SERVICES.map((s) => [s.name, s] as const))(
    '%s: image, port, probes on /readyz and /healthz, resources, non-root',
    (name, info) => {
      const pod = podOf(find(objects, 'Deployment', name));
      const [container] = pod.containers;
      expect(container?.image).toMatch(/^ghcr\.io\/conduit\/conduit:/);
      expect(container?.env).toEqual(expect.arrayContaining([{ name: 'SERVICE', value: name }]));
      // The gateway's /metrics has a port of its own (GATEWAY_METRICS_PORT); every other service serves it on its one port.
      const metricsPort = name === 'gateway' ? GATEWAY_METRICS_PORT : info.port;
      expect(container?.ports).toEqual(
        name === 'gateway'
          ? [
              { name: 'http', containerPort: info.port },
              { name: 'metrics', containerPort: metricsPort },
            ]
          : [{ name: 'http', containerPort: info.port }],
      );
      const annotations = (
        find(objects, 'Deployment', name).spec as { template: { metadata: { annotations?: Record<string, string> } } }
      ).template.metadata.annotations;
      expect(annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPort),
        'prometheus.io/path': '/metrics',
      });
      expect(container?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container?.resources?.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container?.resources?.limits?.memory).toEqual(expect.any(String));
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container?.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
    },
  );

  it("the executor's termination grace outlasts its drain (EXECUTOR_SHUTDOWN_GRACE_MS + EXECUTOR_INTERRUPT_GRACE_MS) by at least 10 s", () => {
    const pod = podOf(find(objects, 'Deployment', 'executor'));
    const env = (name: string) => pod.containers[0]?.env?.find((e) => e.name === name)?.value;
    const drain = Number(env('EXECUTOR_SHUTDOWN_GRACE_MS'));
    expect(drain).toBeGreaterThan(0);
    const interrupted = Number(env('EXECUTOR_INTERRUPT_GRACE_MS') ?? EXECUTOR_INTERRUPT_GRACE_DEFAULT_MS);
    expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThanOrEqual(drain + interrupted + 10_000);
  });

  it.each(SERVICES.map((s) => [s.name, s] as const))(
    "%s: migrations in an init container (no Job to delete per image), with the service's image and settings",
    (name, info) => {
      expect(objects.filter((o) => o.kind === 'Job')).toEqual([]);
      const pod = podOf(find(objects, 'Deployment', name));
      const [container] = pod.containers;
      if (!info.migrates) {
        expect(pod.initContainers ?? []).toEqual([]);
        return;
      }
      expect(pod.initContainers).toHaveLength(1);
      const init = pod.initContainers![0]!;
      // The same image, so a new tag migrates before the pods of that tag start.
      expect(init.image).toBe(container?.image);
      expect(init.command).toEqual(['node', `/app/apps/${name}/dist/migrate.js`]);
      expect(existsSync(resolve(ROOT, `apps/${name}/dist/migrate.js`))).toBe(true);
      expect(init.envFrom).toEqual(container?.envFrom);
      expect(init.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(init.resources?.limits?.memory).toEqual(expect.any(String));
    },
  );

  it.each(SERVICES.map((s) => [s.name] as const))('%s: its own ServiceAccount, with no token mounted', (name) => {
    const pod = podOf(find(objects, 'Deployment', name));
    expect(pod.serviceAccountName).toBe(name);
    expect(pod.automountServiceAccountToken).toBe(false);
    const account = find(objects, 'ServiceAccount', name) as K8sObject & { automountServiceAccountToken?: boolean };
    expect(account.automountServiceAccountToken).toBe(false);
  });

  it.each(SERVICES.map((s) => [s.name] as const))(
    '%s: replicas spread over zones and nodes, counting only its own pods of the same revision',
    (name) => {
      const spread = podOf(find(objects, 'Deployment', name)).topologySpreadConstraints ?? [];
      expect(spread.map((c) => c.topologyKey).sort()).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
      for (const constraint of spread) {
        expect(constraint).toMatchObject({
          maxSkew: 1,
          whenUnsatisfiable: 'ScheduleAnyway',
          matchLabelKeys: ['pod-template-hash'],
        });
        expect(constraint.labelSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': name } });
      }
    },
  );

  it('NetworkPolicies: every pod denies by default, only the gateway API port accepts anyone, Prometheus only the ops ports, all reach PostgreSQL and Redis', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    type Ingress = { from?: unknown[]; ports?: { port: number; endPort?: number }[] };
    type Policy = {
      podSelector: { matchLabels?: Record<string, string> };
      policyTypes: string[];
      ingress?: Ingress[];
      egress?: { ports?: { port: number }[] }[];
    };
    const spec = (o: K8sObject) => o.spec as Policy;
    const deny = policies.find(
      (p) =>
        spec(p).podSelector.matchLabels?.['app.kubernetes.io/part-of'] === 'conduit' &&
        !spec(p).ingress &&
        !spec(p).egress,
    );
    expect(deny && spec(deny).policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    const withIngress = policies.filter((p) => (spec(p).ingress ?? []).length > 0);
    const fromAnywhere = withIngress.flatMap((p) =>
      (spec(p).ingress ?? [])
        .filter((rule) => !rule.from)
        .map((rule) => ({ pods: spec(p).podSelector, ports: rule.ports })),
    );
    expect(fromAnywhere).toEqual([
      { pods: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } }, ports: [{ protocol: 'TCP', port: 3000 }] },
    ]);
    // Prometheus: the ops ports (the gateway's metrics port and every other service's port), from its namespace only.
    const scrape = withIngress.flatMap((p) => (spec(p).ingress ?? []).filter((rule) => rule.from));
    expect(scrape).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: expect.any(Object) } }],
        ports: [{ protocol: 'TCP', port: GATEWAY_METRICS_PORT, endPort: 3105 }],
      },
    ]);
    for (const { name, port } of SERVICES)
      if (name !== 'gateway') expect(port).toBeGreaterThanOrEqual(GATEWAY_METRICS_PORT);
    const dataPorts = policies
      .filter((p) => spec(p).podSelector.matchLabels?.['app.kubernetes.io/part-of'] === 'conduit')
      .flatMap((p) => spec(p).egress ?? [])
      .flatMap((rule) => (rule.ports ?? []).map((port) => port.port));
    expect(dataPorts).toEqual(expect.arrayContaining([53, 5432, 6379]));
    // The label the policies select on reaches every pod template.
    for (const { name } of SERVICES) {
      const labels = (
        find(objects, 'Deployment', name).spec as { template: { metadata: { labels: Record<string, string> } } }
      ).template.metadata.labels;
      expect(labels['app.kubernetes.io/part-of']).toBe('conduit');
    }
  });
});

describe('executor autoscaling', () => {
  it('dev: an HPA on CPU for the executor Deployment', () => {
    const objects = render('k8s/overlays/dev');
    const hpa = find(objects, 'HorizontalPodAutoscaler', 'executor').spec as Record<string, unknown>;
    expect(hpa.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'executor' });
    expect(hpa.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } },
      },
    ]);
    expect(objects.some((o) => o.kind === 'ScaledObject')).toBe(false);
  });

  it('the base without overlays keeps the CPU HPA', () => {
    const objects = render('k8s/base');
    expect(find(objects, 'HorizontalPodAutoscaler', 'executor').spec).toMatchObject({ minReplicas: 2 });
  });

  it('prod (components/keda): a ScaledObject on the BullMQ runs wait list under REDIS_PREFIX, and no second HPA', () => {
    const objects = render('k8s/overlays/prod');
    expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler')).toEqual([]);
    const scaled = find(objects, 'ScaledObject', 'executor');
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    type Trigger = { type: string; metadata: Record<string, string> };
    const spec = scaled.spec as {
      scaleTargetRef: { name: string };
      minReplicaCount: number;
      maxReplicaCount: number;
      triggers: Trigger[];
    };
    expect(spec.scaleTargetRef.name).toBe('executor');
    expect(spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(spec.maxReplicaCount).toBeGreaterThan(spec.minReplicaCount);
    const prefix = (find(objects, 'ConfigMap', 'conduit-config').data as Record<string, string>).REDIS_PREFIX!;
    const redis = spec.triggers.find((t) => t.type === 'redis');
    // The same key the executors' BullMQ worker reads: `${bullPrefix(REDIS_PREFIX)}:runs:wait`.
    expect(redis?.metadata.listName).toBe(`${bullPrefix(prefix)}:${QUEUES.runs}:wait`);
    expect(Number(redis?.metadata.listLength)).toBeGreaterThan(0);
    expect(redis?.metadata.address).toMatch(/^[a-z0-9.-]+:\d+$/);
  });
});
