/**
 * The wire of `chorus serve`, the coverage reward server: LLM4Cov's evaluation job and result (its client's manifest
 * with the files inline; its published result schema), the reward request and answer, and the error body. Each is
 * declared once with its JSON schema; the server checks requests against them, clients and tests check answers.
 */
import type { JSONSchemaType, SchemaObject } from 'ajv';
import type { RunStatus } from './coverage';
import type { ErrorKind } from './errors';

/**
 * A file name in a request: relative, `/`-separated, no `.`/`..` segment, no hidden or odd names. The server writes
 * each file under it in the request's own folder and nowhere else.
 */
export const SERVE_FILE_NAME = '^(?!.*(?:^|/)\\.)[A-Za-z0-9_][A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.+-]*){0,7}$';
const MAX_FILES = 256;
const fileName = { type: 'string', pattern: SERVE_FILE_NAME, maxLength: 255 } as const;
const files = {
  type: 'object',
  propertyNames: fileName,
  additionalProperties: { type: 'string' },
  required: [],
  maxProperties: MAX_FILES,
} as const;
const moduleName = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_$]*$', maxLength: 255 } as const;

/** LLM4Cov's metric names (its client asks for all of them). */
export const LLM4COV_METRICS = ['overall', 'code', 'fsm', 'functional', 'toggle', 'block', 'assertion'] as const;
export type Llm4CovMetric = (typeof LLM4COV_METRICS)[number];

/** LLM4Cov's result statuses (its `protocol.md`). */
export const LLM4COV_STATUSES = [
  'success',
  'xrun_failed',
  'imc_merge_failed',
  'imc_report_summary_failed',
  'exception',
] as const;
export type Llm4CovStatus = (typeof LLM4COV_STATUSES)[number];

/** `POST /v1/llm4cov`: LLM4Cov's job manifest (`xfer_client.submit_cov_job`) with its input files inline. */
export interface CoverageJob {
  /** The DUT's top module (`context.dut_top_module_name`). */
  dut: string;
  /** The testbench's file name: a key of `files`. */
  tb: string;
  /** The design's file names in build order: keys of `files`. */
  sv_files: string[];
  /** Every input file by name: the design's and the testbench. */
  files: Record<string, string>;
  /** LLM4Cov sends `all`; CHORUS always measures every kind it has. */
  cov_type?: string;
  metrics?: Llm4CovMetric[];
  /** Seconds per stage (LLM4Cov: 600); bounded by the server's own limit. */
  timeout?: number;
  /** Leave the holes text (`cov_info.detail`) out. */
  skip_detail?: boolean;
  /** sha256 hex of each file's UTF-8 bytes, as LLM4Cov computes them: a file that differs is refused. */
  inputs_sha256?: Record<string, string>;
  /** Echoed back; the rest of LLM4Cov's manifest is accepted and not used. */
  job_id?: string;
  eda_repo_dir?: string;
  submitted_at?: string;
}

const timeout = { type: 'number', exclusiveMinimum: 0, maximum: 86400, nullable: true } as const;

export const coverageJobSchema: JSONSchemaType<CoverageJob> = {
  type: 'object',
  properties: {
    dut: moduleName,
    tb: fileName,
    sv_files: { type: 'array', items: fileName, minItems: 1, maxItems: MAX_FILES },
    files,
    cov_type: { type: 'string', maxLength: 64, nullable: true },
    metrics: {
      type: 'array',
      items: { type: 'string', enum: [...LLM4COV_METRICS] },
      maxItems: 32,
      nullable: true,
    },
    timeout,
    skip_detail: { type: 'boolean', nullable: true },
    inputs_sha256: {
      type: 'object',
      propertyNames: fileName,
      additionalProperties: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
      required: [],
      nullable: true,
    },
    job_id: { type: 'string', maxLength: 255, nullable: true },
    eda_repo_dir: { type: 'string', maxLength: 4096, nullable: true },
    submitted_at: { type: 'string', maxLength: 64, nullable: true },
  },
  required: ['dut', 'tb', 'sv_files', 'files'],
  additionalProperties: false,
};

/** One row of LLM4Cov's `cov_info.summary` (IMC's per-module table): fractions in [0, 1], null where not measured. */
export interface ModuleSummary {
  /** The DUT top's module name, then each sub-instance's module. */
  name: string;
  /** Depth below the DUT top (0 for it). */
  level: number;
  /** CHORUS's instance path of the row. */
  instance: string;
  'Overall Average': number | null;
  'Overall Covered': number | null;
  'Code Average': number | null;
  'Code Covered': number | null;
  'Fsm Average': number | null;
  'Fsm Covered': number | null;
  'Functional Average': number | null;
  'Functional Covered': number | null;
  Toggle: number | null;
  Block: number | null;
  Assertion: number | null;
}

export interface CoverageInfo {
  summary: ModuleSummary[];
  /** The holes as the model reads them (CHORUS's feedback text); '' with `skip_detail`. */
  detail: string;
  /** Build and simulation wall-clock time. */
  runtime_sec: number;
}

/** LLM4Cov's result (`protocol.md`'s output schema), with CHORUS's own status beside its mapped one. */
export interface CoverageJobResult {
  returncode: number;
  status: Llm4CovStatus;
  err_msg: string;
  cov_info?: CoverageInfo;
  /** The run status CHORUS measured (`status` is mapped from it). */
  chorus_status: RunStatus;
  job_id?: string;
}

const fraction = { type: 'number', minimum: 0, maximum: 1, nullable: true } as const;

/**
 * The answers' schemas are plain schema objects: a member that is required and may be null (every LLM4Cov figure)
 * is beyond ajv's JSONSchemaType. The interfaces above are the source; test/serve checks every answer against these.
 */
export const coverageJobResultSchema: SchemaObject = {
  type: 'object',
  properties: {
    returncode: { type: 'integer' },
    status: { type: 'string', enum: [...LLM4COV_STATUSES] },
    err_msg: { type: 'string' },
    cov_info: {
      type: 'object',
      properties: {
        summary: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              level: { type: 'integer', minimum: 0 },
              instance: { type: 'string' },
              'Overall Average': fraction,
              'Overall Covered': fraction,
              'Code Average': fraction,
              'Code Covered': fraction,
              'Fsm Average': fraction,
              'Fsm Covered': fraction,
              'Functional Average': fraction,
              'Functional Covered': fraction,
              Toggle: fraction,
              Block: fraction,
              Assertion: fraction,
            },
            required: [
              'name',
              'level',
              'instance',
              'Overall Average',
              'Overall Covered',
              'Code Average',
              'Code Covered',
              'Fsm Average',
              'Fsm Covered',
              'Functional Average',
              'Functional Covered',
              'Toggle',
              'Block',
              'Assertion',
            ],
            additionalProperties: false,
          },
        },
        detail: { type: 'string' },
        runtime_sec: { type: 'number', minimum: 0 },
      },
      required: ['summary', 'detail', 'runtime_sec'],
      additionalProperties: false,
      nullable: true,
    },
    chorus_status: {
      type: 'string',
      enum: ['ok', 'compile_error', 'sim_error', 'timeout', 'rejected', 'resource_limit'],
    },
    job_id: { type: 'string', nullable: true },
  },
  required: ['returncode', 'status', 'err_msg', 'chorus_status'],
  additionalProperties: false,
};

/** What a reward is computed over: CHORUS's kinds, `fsm` (states and arcs), `code` (lines and branches), `overall`. */
export const REWARD_METRICS = [
  'overall',
  'line',
  'branch',
  'toggle',
  'fsm',
  'fsm_state',
  'fsm_arc',
  'expr',
  'code',
] as const;
export type RewardMetric = (typeof REWARD_METRICS)[number];

/**
 * `POST /v1/reward`: one rollout. The testbench is `files[tb]`, or the model's raw reply (`reply`: a filename line
 * and a code block, as CHORUS's model answers), parsed as the loop parses it.
 */
export interface RewardRequest {
  dut: string;
  sv_files: string[];
  files: Record<string, string>;
  tb?: string;
  reply?: string;
  /** Default `["overall"]`: the paper's reward. */
  metrics?: RewardMetric[];
  timeout?: number;
}

export const rewardRequestSchema: JSONSchemaType<RewardRequest> = {
  type: 'object',
  properties: {
    dut: moduleName,
    sv_files: { type: 'array', items: fileName, minItems: 1, maxItems: MAX_FILES },
    files,
    tb: { ...fileName, nullable: true },
    reply: { type: 'string', nullable: true },
    metrics: {
      type: 'array',
      items: { type: 'string', enum: [...REWARD_METRICS] },
      minItems: 1,
      maxItems: 16,
      nullable: true,
    },
    timeout,
  },
  required: ['dut', 'sv_files', 'files'],
  additionalProperties: false,
};

/** A rollout's status: a measured run's, or `no_code` when the reply held no testbench. */
export type RewardStatus = RunStatus | 'no_code';

export interface RewardResult {
  /** 0 when the testbench did not build or run; else 1 + `coverage`. */
  reward: number;
  /** c in [0, 1]: the mean of the asked metrics' covered fractions. */
  coverage: number;
  /** Each asked metric's covered fraction (empty when it did not run). */
  fractions: Partial<Record<RewardMetric, number>>;
  status: RewardStatus;
  /** The follow-up the model would read in its next round. */
  feedback: string;
  /** The simulator came from the build cache. */
  cache_hit: boolean;
  ms: { build: number; sim: number };
}

export const rewardResultSchema: SchemaObject = {
  type: 'object',
  properties: {
    reward: { type: 'number', minimum: 0, maximum: 2 },
    coverage: { type: 'number', minimum: 0, maximum: 1 },
    fractions: {
      type: 'object',
      propertyNames: { type: 'string', enum: [...REWARD_METRICS] },
      additionalProperties: { type: 'number', minimum: 0, maximum: 1 },
      required: [],
    },
    status: {
      type: 'string',
      enum: ['ok', 'compile_error', 'sim_error', 'timeout', 'rejected', 'resource_limit', 'no_code'],
    },
    feedback: { type: 'string' },
    cache_hit: { type: 'boolean' },
    ms: {
      type: 'object',
      properties: { build: { type: 'number' }, sim: { type: 'number' } },
      required: ['build', 'sim'],
      additionalProperties: false,
    },
  },
  required: ['reward', 'coverage', 'fractions', 'status', 'feedback', 'cache_hit', 'ms'],
  additionalProperties: false,
};

/** The body of every 4xx/5xx answer. */
export interface ServeError {
  error: string;
  kind: ErrorKind | 'too_large' | 'busy' | 'unauthorized' | 'not_found';
  /** The request member at fault (a JSON pointer), for a schema error. */
  field?: string;
}
