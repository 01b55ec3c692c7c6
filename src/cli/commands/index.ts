import type { Command } from 'commander';
import type { CliContext } from '../context';
import { registerBench } from './bench';
import { registerCache } from './cache';
import { registerCoverage } from './coverage';
import { registerGenerate } from './generate';
import { registerInspect } from './inspect';
import { registerModel } from './model';
import { registerPrompt } from './prompt';
import { registerProve } from './prove';
import { registerServe } from './serve';

/** A subcommand adds itself to the program; its action gets the shared context. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

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
