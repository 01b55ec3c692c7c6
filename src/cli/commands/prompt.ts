/** `chorus prompt`: the opening messages the model sees, as JSON. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { buildOpeningMessages, prepareRun } from '../../engine';
import type { CliContext } from '../context';
import { addDesignOptions, designInput, type DesignCliFlags } from '../design';
import { collect } from '../options';
import type { RegisterCommand } from './register';

export const registerPrompt: RegisterCommand = (program: Command, ctx: CliContext) => {
  const command = program
    .command('prompt')
    .description('Print the opening messages sent to the model as a JSON array of {role, content}.')
    .argument('[rtl...]', 'DUT source files; or give --filelist')
    .option('--top <module>', 'DUT top module')
    .option('--spec <file>', 'specification file (repeatable)', collect, [])
    .option('--instance <name>', 'DUT instance name (default uut)');
  addDesignOptions(command).action(
    async (files: string[], flags: DesignCliFlags & { top?: string; spec: string[]; instance?: string }) => {
      const design = await designInput(files, flags);
      const run = await prepareRun({
        rtlFiles: design.files.map((f) => resolve(f)),
        includeDirs: design.includeDirs,
        defines: design.defines,
        parameters: design.parameters,
        specFiles: flags.spec.map((f) => resolve(f)),
        top: flags.top ?? design.top,
        instanceName: flags.instance,
        engine: 'llm',
        targets: {},
        // Nothing is written for a prompt; the run folder only has to exist.
        workDir: process.cwd(),
      });
      const messages = buildOpeningMessages({
        rtl: run.rtl,
        specs: run.specs,
        top: run.top.name,
        instance: run.instance,
        clock: run.top.clock,
        reset: run.top.reset,
        parameters: run.design.parameters,
      });
      ctx.out(JSON.stringify(messages, null, 2));
    },
  );
};
