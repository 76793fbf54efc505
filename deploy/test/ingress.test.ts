import { OVERLAYS, find, render, type K8sObject } from './support/kustomize.js';
import { validateObject } from './support/k8s-models.js';
import { DEFAULT_GATEWAY_METRICS_PORT as GATEWAY_METRICS_PORT } from '../../apps/gateway/dist/config.js';

/** The base's stand-in host: an overlay that serves users must replace it. */
const PLACEHOLDER_HOST = 'conduit.local';

interface ServicePort {
  name?: string;
  port: number;
}
interface IngressPath {
  path: string;
  pathType: string;
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface IngressSpec {
  ingressClassName?: string;
  tls?: { hosts?: string[]; secretName?: string }[];
  rules: { host?: string; http: { paths: IngressPath[] } }[];
}

const ingressesOf = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Ingress');
const specOf = (o: K8sObject) => o.spec as IngressSpec;

describe.each(OVERLAYS)('k8s/overlays/%s: the Ingress', (overlay) => {
  let objects: K8sObject[];
  let spec: IngressSpec;
  beforeAll(() => {
    objects = render(`k8s/overlays/${overlay}`);
    const ingresses = ingressesOf(objects);
    expect(ingresses.map((o) => `${o.apiVersion}/${o.metadata.name}`)).toEqual(['networking.k8s.io/v1/gateway']);
    spec = specOf(ingresses[0]!);
  });

  it('is one networking.k8s.io/v1 Ingress that validates against the schema', () => {
    expect(validateObject(find(objects, 'Ingress', 'gateway'))).toBe(true);
  });

  it('routes /v2 (the API) and / (the console) by prefix, on one host, to the gateway Service', () => {
    expect(spec.rules).toHaveLength(1);
    const paths = spec.rules[0]!.http.paths;
    expect(paths.map((p) => [p.path, p.pathType])).toEqual([
      ['/v2', 'Prefix'],
      ['/', 'Prefix'],
    ]);
    for (const path of paths) expect(path.backend.service.name).toBe('gateway');
  });

  it('every backend port is one the gateway Service has, its API port, never the metrics port', () => {
    const ports = (find(objects, 'Service', 'gateway').spec as { ports: ServicePort[] }).ports;
    for (const { backend } of spec.rules.flatMap((r) => r.http.paths)) {
      const { name, number } = backend.service.port;
      const target = ports.find((p) => (name !== undefined ? p.name === name : p.port === number));
      expect(target).toEqual(expect.objectContaining({ name: 'http', port: 3000 }));
      expect(target?.port).not.toBe(GATEWAY_METRICS_PORT);
    }
    expect(ports.map((p) => p.port)).not.toContain(GATEWAY_METRICS_PORT);
  });

  it("the gateway's NetworkPolicies let the ingress controller (from any namespace) reach that port", () => {
    type Policy = {
      podSelector: { matchLabels?: Record<string, string> };
      ingress?: { from?: unknown[]; ports?: { port: number }[] }[];
    };
    const open = objects
      .filter((o) => o.kind === 'NetworkPolicy')
      .map((o) => o.spec as Policy)
      .filter((p) => p.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'gateway')
      .flatMap((p) => p.ingress ?? [])
      .filter((rule) => !rule.from)
      .flatMap((rule) => (rule.ports ?? []).map((p) => p.port));
    expect(open).toContain(3000);
  });

  it('TLS covers the host it routes, from a named Secret', () => {
    const host = spec.rules[0]!.host;
    expect(host).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/);
    expect(spec.tls).toEqual([{ hosts: [host], secretName: expect.stringMatching(/^[a-z0-9][a-z0-9.-]*$/) }]);
  });
});

describe('the Ingress per overlay', () => {
  it('the base and dev keep the placeholder host; prod sets its own domain and certificate Secret', () => {
    const hostOf = (dir: string) => specOf(ingressesOf(render(dir))[0]!);
    const base = hostOf('k8s/base');
    expect(base.rules[0]!.host).toBe(PLACEHOLDER_HOST);
    expect(hostOf('k8s/overlays/dev').rules[0]!.host).toBe(PLACEHOLDER_HOST);
    const prod = hostOf('k8s/overlays/prod');
    const host = prod.rules[0]!.host!;
    expect(host).not.toBe(PLACEHOLDER_HOST);
    // A name public DNS can resolve: not a .local (mDNS), .localhost or .internal one.
    expect(host).not.toMatch(/\.(local|localhost|internal|test)$/);
    expect(prod.tls?.[0]?.secretName).not.toBe(base.tls?.[0]?.secretName);
  });
});
