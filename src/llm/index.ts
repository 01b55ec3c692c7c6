/** Model backends behind one interface, and model management. */
export type { ChatBackend, ChatOptions, ChatResult, ChatUsage, ModelStatusListener, SamplingOptions } from './backend';
export { openBackend, type OpenBackendOptions } from './open';
export { openExperts, parseExpert, type ExpertOptions, type ExpertSpec, type OpenedExperts } from './experts';
export { BackendPool, type BackendPoolOptions } from './pool';
export { ReplayBackend } from './replay';
export { EndpointBackend, apiRoot, type EndpointOptions } from './endpoint/openai';
export { LocalBackend, type LocalBackendOptions } from './local/localBackend';
export { computeAttempts, withComputeFallback, type GpuSetting } from './local/compute';
export { DEFAULT_SAMPLING } from './sampling';
export { listModels, findDefaultModel, type ListModelsOptions } from './models/list';
export { findGgufFiles } from './models/files';
export { pullModel, sha256File, type PullOptions } from './models/pull';
export { modelInfo, type ModelInfo } from './models/info';
export { loadManifest, validateManifest, defaultManifestPath } from './models/manifest';
export { resolveModelFile } from './models/resolve';
