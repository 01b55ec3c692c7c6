/** `chorus.*` settings as the server reads them: per resource from `workspace/configuration`, never cached. */
import type { Connection } from 'vscode-languageserver';
import { DEFAULT_TARGETS, type EngineName, type TargetMetric, type Targets } from '../protocol';

export interface ServerSettings {
  model: string;
  endpoint: string;
  apiModel: string;
  verilatorPath: string;
  targets: Targets;
  maxRounds: number;
  engine: EngineName | 'auto';
  gpu: 'auto' | 'cuda' | 'vulkan' | 'metal' | 'cpu';
  contextSize: number;
  simTimeoutSeconds: number;
  showHolesAsDiagnostics: boolean;
}

const METRICS: TargetMetric[] = ['line', 'branch', 'toggle', 'overall'];

type Raw = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);

function targets(v: unknown): Targets {
  if (!v || typeof v !== 'object') return { ...DEFAULT_TARGETS };
  const out: Targets = {};
  for (const [k, pct] of Object.entries(v as Raw)) {
    if (METRICS.includes(k as TargetMetric) && typeof pct === 'number' && pct >= 0 && pct <= 100) out[k as TargetMetric] = pct;
  }
  return Object.keys(out).length ? out : { ...DEFAULT_TARGETS };
}

export function parseSettings(raw: unknown): ServerSettings {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Raw;
  const engine = str(r.engine);
  const gpu = str(r.gpu);
  return {
    model: str(r.model),
    endpoint: str(r.endpoint),
    apiModel: str(r.apiModel),
    verilatorPath: str(r.verilatorPath),
    targets: targets(r.targets),
    maxRounds: Math.max(1, Math.round(num(r.maxRounds, 3))),
    engine: (['random', 'llm', 'hybrid', 'auto'].includes(engine) ? engine : 'auto') as ServerSettings['engine'],
    gpu: (['auto', 'cuda', 'vulkan', 'metal', 'cpu'].includes(gpu) ? gpu : 'auto') as ServerSettings['gpu'],
    contextSize: Math.max(0, Math.round(num(r.contextSize, 0))),
    simTimeoutSeconds: Math.max(1, num(r.simTimeoutSeconds, 30)),
    showHolesAsDiagnostics: r.showHolesAsDiagnostics === true,
  };
}

export async function readSettings(connection: Connection, uri: string | undefined, supported: boolean): Promise<ServerSettings> {
  if (!supported) return parseSettings({});
  const raw: unknown = await connection.workspace.getConfiguration({ scopeUri: uri, section: 'chorus' });
  return parseSettings(raw);
}
