export * from './api';
export { generate, generateToEnd, DEFAULT_ROUNDS } from './generate';
export { parseTargets, meetsTargets, overallPct, formatSummary, formatTargets } from './targets';
export { writeTestbench, writeFileAtomic, mayOverwrite, GENERATED_MARKER } from './fs';
export { buildOpeningMessages } from './llm/prompt';
export { parseReply } from './llm/reply';
export { parsePatch, applyPatch } from './llm/patch';
export { prepareRun } from './context';
