/**
 * The deployment files: every Kubernetes manifest in deploy/k8s validates against the vendored, strict JSON schema of
 * its kind (Kubernetes v1.31.0; KEDA v2.20.2's ScaledObject), a misspelt field is caught, and the manifests agree
 * with the server (probe paths, port, the queue metric it exports) and with the image definition.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Ajv, { type ValidateFunction } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { BuildSlots } from '../../src/serve/slots';
import { serveMetrics } from '../../src/serve/metrics';

const ROOT = join(__dirname, '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const SCHEMAS: Record<string, string> = {
  'apps/v1 Deployment': 'deployment-apps-v1.json',
  'v1 Service': 'service-v1.json',
  'v1 ConfigMap': 'configmap-v1.json',
  'autoscaling/v2 HorizontalPodAutoscaler': 'horizontalpodautoscaler-autoscaling-v2.json',
  'keda.sh/v1alpha1 ScaledObject': 'scaledobject-keda-v1alpha1.json',
};

// Formats (int32, date-time) are the API server's business; the schemas' structure, types and enums are checked.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const validators = new Map<string, ValidateFunction>();
function validatorFor(gvk: string): ValidateFunction {
  const file = SCHEMAS[gvk];
  assert.ok(file, `deploy/k8s: no vendored schema for ${gvk}; add it to deploy/k8s/schemas/extract.mjs`);
  let v = validators.get(gvk);
  if (!v) {
    v = ajv.compile(JSON.parse(readFileSync(join(K8S, 'schemas', file), 'utf8')) as object);
    validators.set(gvk, v);
  }
  return v;
}

interface Manifest {
  file: string;
  gvk: string;
  doc: Record<string, unknown>;
}

function manifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of readdirSync(K8S).filter((f) => f.endsWith('.yaml'))) {
    for (const d of parseAllDocuments(readFileSync(join(K8S, file), 'utf8'))) {
      assert.deepEqual(d.errors, [], `${file}: YAML errors`);
      const doc = d.toJS() as Record<string, unknown>;
      out.push({ file, gvk: `${String(doc.apiVersion)} ${String(doc.kind)}`, doc });
    }
  }
  return out;
}

function errorsOf(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}

// Small typed readers over the parsed YAML: the manifests are data, so each step says what it expects.
function at(obj: unknown, ...path: (string | number)[]): unknown {
  let cur = obj;
  for (const p of path) {
    assert.ok(cur !== null && typeof cur === 'object', `no ${path.join('.')}`);
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

describe('deploy/k8s manifests', () => {
  const all = manifests();

  it('every manifest validates against its kind’s Kubernetes v1.31.0 / KEDA v2.20.2 schema', () => {
    assert.deepEqual(
      [...new Set(all.map((m) => m.gvk))].sort(),
      Object.keys(SCHEMAS).sort(),
      'each vendored kind is used and each used kind vendored',
    );
    for (const m of all) {
      const v = validatorFor(m.gvk);
      assert.ok(v(m.doc), `${m.file} (${m.gvk}) does not validate:\n${errorsOf(v)}`);
    }
  });

  it('the schemas are strict: a misspelt field, a wrong type and a missing required member fail', () => {
    const dep = all.find((m) => m.gvk === 'apps/v1 Deployment');
    assert.ok(dep);
    const v = validatorFor(dep.gvk);
    const probe = structuredClone(dep.doc);
    const container = at(probe, 'spec', 'template', 'spec', 'containers', 0) as Record<string, unknown>;
    (container.readinessProbe as Record<string, unknown>).httpGett = { path: '/ready', port: 8765 };
    assert.equal(v(probe), false, 'an unknown field is refused');
    assert.match(errorsOf(v), /must NOT have additional properties.*httpGett/);
    const typed = structuredClone(dep.doc);
    (at(typed, 'spec') as Record<string, unknown>).replicas = 'two';
    assert.equal(v(typed), false, 'a string for an integer is refused');
    const so = all.find((m) => m.gvk === 'keda.sh/v1alpha1 ScaledObject');
    assert.ok(so);
    const vs = validatorFor(so.gvk);
    const noTarget = structuredClone(so.doc);
    delete (at(noTarget, 'spec') as Record<string, unknown>).scaleTargetRef;
    assert.equal(vs(noTarget), false, 'a ScaledObject without scaleTargetRef is refused');
  });

  it('probes, port, token and the autoscalers’ metric agree with the server and the image', () => {
    const dep = all.find((m) => m.gvk === 'apps/v1 Deployment');
    assert.ok(dep);
    const c = at(dep.doc, 'spec', 'template', 'spec', 'containers', 0);
    assert.equal(at(c, 'livenessProbe', 'httpGet', 'path'), '/health');
    assert.equal(at(c, 'readinessProbe', 'httpGet', 'path'), '/ready');
    assert.equal(at(c, 'ports', 0, 'containerPort'), 8765);
    assert.equal(at(c, 'env', 0, 'name'), 'CHORUS_SERVE_TOKEN');
    assert.ok(at(c, 'env', 0, 'valueFrom', 'secretKeyRef'), 'the token comes from a Secret');
    assert.equal(at(dep.doc, 'spec', 'template', 'spec', 'hostUsers'), false, 'the jail needs a user namespace');

    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    assert.match(dockerfile, /^FROM node:20-bookworm-slim$/m);
    for (const pkg of ['verilator', 'bubblewrap', 'g\\+\\+', 'make', 'ccache', 'python3'])
      assert.match(dockerfile, new RegExp(`apt-get install[^\\n]* ${pkg}( |$)`, 'm'), `the image installs ${pkg}`);
    assert.match(dockerfile, /HEALTHCHECK[\s\S]*127\.0\.0\.1:8765\/health/);
    assert.match(dockerfile, /ENTRYPOINT \["chorus", "serve", "--host", "0\.0\.0\.0", "--port", "8765"\]/);

    const exported = new Set(
      serveMetrics(new BuildSlots(1, 0))
        .registry.getMetricsAsArray()
        .map((m) => m.name),
    );
    const so = all.find((m) => m.gvk === 'keda.sh/v1alpha1 ScaledObject');
    const hpa = all.find((m) => m.gvk === 'autoscaling/v2 HorizontalPodAutoscaler');
    assert.ok(so && hpa);
    const query = String(at(so.doc, 'spec', 'triggers', 0, 'metadata', 'query'));
    const kedaMetric = /(chorus_serve_[a-z_]+)/.exec(query)?.[1];
    const hpaMetric = String(at(hpa.doc, 'spec', 'metrics', 0, 'pods', 'metric', 'name'));
    assert.equal(kedaMetric, 'chorus_serve_queue_length');
    assert.equal(hpaMetric, 'chorus_serve_queue_length');
    assert.ok(exported.has(kedaMetric), `the server exports ${kedaMetric}`);
    for (const m of [so, hpa])
      assert.equal(at(m.doc, 'spec', 'scaleTargetRef', 'name'), at(dep.doc, 'metadata', 'name'));
  });
});
