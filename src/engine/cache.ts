/** The build cache and resource limits as adapters see them: `chorus cache info|clear`, size flags. */
export { cacheInfo, clearCache, trimCache, type CacheInfo } from '../sim';
export {
  DEFAULT_CACHE_MAX_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  cacheMaxBytes,
  formatBytes,
  memoryLimitBytes,
  parseByteSize,
} from '../sim';
