/**
 * Issue 21 item 3: every service's /metrics reachable by Prometheus. components/prometheus-operator adds PodMonitors;
 * added to an overlay, each must select exactly the pods whose named port serves /metrics (the gateway's metrics
 * port, never its public one), in the overlay's namespace, and the base's NetworkPolicy must admit those ports.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DEFAULT_GATEWAY_METRICS_PORT as GATEWAY_METRICS_PORT } from '../../apps/gateway/dist/config.js';
import { OVERLAYS, render, type K8sObject } from './support/kustomize.js';
import { ROOT, SERVICES } from './support/repo.js';

type Selector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn'; values: string[] }[];
};
type Monitor = { selector: Selector; podMetricsEndpoints: { port: string; path: string }[] };
type Pod = {
  metadata: { labels: Record<string, string> };
  spec: { containers: { ports?: { name: string; containerPort: number }[] }[] };
};

function matches(selector: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) =>
    e.operator === 'In' ? e.values.includes(labels[e.key] ?? '') : !e.values.includes(labels[e.key] ?? ''),
  );
  return byLabels && byExpressions;
}

/** An overlay with the component added to its `components:`, as an operator would, rendered from a temporary folder. */
function renderWithMonitors(overlay: string): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-kustomize-'));
  try {
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `namespace: ${overlay === 'prod' ? 'conduit' : 'conduit-dev'}`,
        `resources: [${relative(dir, resolve(ROOT, `k8s/overlays/${overlay}`))}]`,
        `components: [${relative(dir, resolve(ROOT, 'k8s/components/prometheus-operator'))}]`,
      ].join('\n'),
    );
    return render(relative(ROOT, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(OVERLAYS)('k8s/overlays/%s with components/prometheus-operator', (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderWithMonitors(overlay);
  });

  it('every service is scraped by exactly one PodMonitor, on the port that serves /metrics', () => {
    const monitors = objects.filter((o) => o.kind === 'PodMonitor');
    expect(monitors.map((m) => m.apiVersion)).toEqual(monitors.map(() => 'monitoring.coreos.com/v1'));
    for (const { name, port } of SERVICES) {
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!;
      const pod = (deployment.spec as { template: Pod }).template;
      const scraping = monitors.filter((m) => matches((m.spec as Monitor).selector, pod.metadata.labels));
      expect([name, scraping.length]).toEqual([name, 1]);
      const [endpoint] = (scraping[0]!.spec as Monitor).podMetricsEndpoints;
      expect(endpoint?.path).toBe('/metrics');
      const containerPort = pod.spec.containers[0]?.ports?.find((p) => p.name === endpoint?.port)?.containerPort;
      expect([name, containerPort]).toEqual([name, name === 'gateway' ? GATEWAY_METRICS_PORT : port]);
      // The pods' annotations (for annotation-based discovery) name the same port.
      expect((pod.metadata as { annotations?: Record<string, string> }).annotations?.['prometheus.io/port']).toBe(
        String(containerPort),
      );
    }
  });

  it("the PodMonitors are in the overlay's namespace, beside the pods", () => {
    const namespaces = new Set(objects.filter((o) => o.kind === 'PodMonitor').map((o) => o.metadata.namespace));
    expect(namespaces).toEqual(new Set([overlay === 'prod' ? 'conduit' : 'conduit-dev']));
  });
});
