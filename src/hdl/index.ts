/** DUT analysis with tree-sitter: modules, ports, widths, parameters, clock/reset, top, FSMs, source sites. */
export { analyzeSources, type AnalysisOptions } from './design';
export { analyzeFiles, readSourceText, MAX_FILE_BYTES } from './files';
export {
  findSite,
  literalDetails,
  literalsOf,
  moduleByName,
  unreachableDefaults,
  type UnreachableDefault,
} from './queries';
export { evaluate, type ConstScope, type ConstValue } from './const-eval';
export { parseNumber, type NumberLiteral } from './numbers';
export { conjuncts, countersOf, identifiersOf, type CounterInfo, type CounterWrite } from './counters';
export { type Filelist, type FilelistOptions } from './filelist';
export { readFilelist } from './project';
export {
  indexModules,
  filesNeeded,
  libraryFilesNeeded,
  type Libraries,
  type LibraryResolution,
  type ModuleIndex,
} from './moduleIndex';
export { fsmModels, fsmModelsOfFiles } from './fsm';
export {
  echoInputs,
  echoedValue,
  handshakePairs,
  inputDictionary,
  type DictionaryOptions,
  type EchoInput,
  type HandshakePair,
  type InputField,
} from './dictionary';
export { splitTopLevel } from './topLevel';
