/** `chorus`: the engine in a terminal, for CI and benchmarks. */
import { Command, CommanderError } from 'commander';
import { ChorusError, exitCodeFor } from '../protocol';
import { machineFault } from '../engine';
import { commands } from './commands';
import { createCliContext } from './context';
import pkg from '../../package.json';

export async function main(argv: string[]): Promise<number> {
  const ctx = createCliContext();
  const program = new Command('chorus')
    .description('Close testbench coverage for Verilog/SystemVerilog designs with Verilator and the CHORUS model.')
    .version(pkg.version, '-V, --version')
    .showHelpAfterError('(run `chorus --help` for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  for (const register of commands) register(program, ctx);
  program.commands.forEach((c) => c.exitOverride().showHelpAfterError());
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version end here too, with exit code 0
      return err.exitCode === 0 ? 0 : 2;
    }
    // A full or read-only disk is the machine's fault whichever write met it: exit 4, never a crash's 1.
    const known = err instanceof ChorusError ? err : machineFault(err);
    if (known) {
      ctx.logger.error(known.describe());
      return exitCodeFor(known.kind);
    }
    ctx.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}

/** Exits once stdout has taken everything written: process.exit would cut a large `--json` result to a pipe at 64 KiB. */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

if (require.main === module) {
  main(process.argv).then(exitAfterOutput, () => exitAfterOutput(1));
}
