import { registerBench } from './bench';
import { registerCache } from './cache';
import { registerCoverage } from './coverage';
import { registerGenerate } from './generate';
import { registerInspect } from './inspect';
import { registerModel } from './model';
import { registerPrompt } from './prompt';
import { registerProve } from './prove';
import { registerServe } from './serve';

import type { RegisterCommand } from './register';

export type { RegisterCommand } from './register';

// Each subcommand lives in its own file and is listed here once.
export const commands: RegisterCommand[] = [
  registerGenerate,
  registerPrompt,
  registerBench,
  registerCoverage,
  registerModel,
  registerInspect,
  registerCache,
  registerProve,
  registerServe,
];
