import type { Command } from 'commander';
import type { CliContext } from '../context';

/** A subcommand adds itself to the program; its action gets the shared context. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;
