/** `chorus prompt`: the opening messages the model sees, as JSON. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { buildOpeningMessages, prepareRun } from '../../engine';
import type { CliContext } from '../context';
import { collect } from '../options';
import type { RegisterCommand } from './index';

export const registerPrompt: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('prompt')
    .description('Print the opening messages sent to the model as a JSON array of {role, content}.')
    .argument('<rtl...>', 'DUT source files')
    .option('--top <module>', 'DUT top module')
    .option('--spec <file>', 'specification file (repeatable)', collect, [])
    .option('--instance <name>', 'DUT instance name (default uut)')
    .action(async (files: string[], flags: { top?: string; spec: string[]; instance?: string }) => {
      const run = await prepareRun({
        rtlFiles: files.map((f) => resolve(f)),
        specFiles: flags.spec.map((f) => resolve(f)),
        top: flags.top,
        instanceName: flags.instance,
        engine: 'llm',
        targets: {},
        // Nothing is written for a prompt; the run folder only has to exist.
        workDir: process.cwd(),
      });
      const messages = buildOpeningMessages({ rtl: run.rtl, specs: run.specs, top: run.top.name, instance: run.instance, clock: run.top.clock, reset: run.top.reset });
      ctx.out(JSON.stringify(messages, null, 2));
    });
};
