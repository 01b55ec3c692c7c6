/** The C++ side of a build: compiler identity (part of cache keys), make, and ccache when present. */
import { execFile } from 'node:child_process';
import { ChorusError } from '../../protocol';
import { logToolStart } from '../process/toolLog';
import { whichSync } from './verilator';

export interface Toolchain {
  make: string;
  /** First line of `g++ --version` plus its path. */
  compilerId: string;
  ccache?: string | undefined;
}

const CXX_HINT =
  'a C++ compiler and make are needed to build simulations: install them with `apt-get install g++ make`';

let cached: Promise<Toolchain> | undefined;

export function detectToolchain(): Promise<Toolchain> {
  cached ??= probe().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function probe(): Promise<Toolchain> {
  const make = whichSync('make');
  const cxx = whichSync(process.env.CXX || 'g++');
  if (!make || !cxx) throw new ChorusError('missing_tool', `${!make ? 'make' : 'g++'} not found: ${CXX_HINT}.`);
  const version = await new Promise<string>((resolve, reject) => {
    const child = execFile(cxx, ['--version'], { timeout: 30_000, encoding: 'utf8' }, (err, stdout) => {
      if (err)
        reject(
          new ChorusError(
            'missing_tool',
            `${cxx} --version failed (${err.message.split('\n')[0]}): ${CXX_HINT}.`,
            undefined,
            { cause: err },
          ),
        );
      else resolve(stdout.split('\n')[0] ?? '');
    });
    if (child.pid !== undefined)
      logToolStart(cxx, ['--version'], process.cwd(), child.pid, { wallMs: 30_000 }, 'probe');
  });
  return { make, compilerId: `${cxx} ${version}`, ccache: whichSync('ccache') };
}

/** make's failure text when the compiler itself is missing. */
export function missingCompiler(output: string): boolean {
  return /(g\+\+|c\+\+|ccache)(: No such file or directory|: command not found|: not found)/.test(output);
}

export function missingCompilerError(): ChorusError {
  return new ChorusError('missing_tool', `The C++ compiler could not be run: ${CXX_HINT}.`);
}
