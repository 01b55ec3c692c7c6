// Finds (and on first use downloads) the runtime of the formal engine's slang front end, so that a test run or a
// demo does not pay the download in the middle: `node --import tsx scripts/formal-runtime.ts`. Prints the choice.
import { slangRuntime } from '../src/formal/runtime';

const say = (msg: string) => process.stderr.write(`formal-runtime: ${msg}\n`);
const log = { debug() {}, info: say, warn: say, error: say };
void slangRuntime(log).then((choice) => {
  if ('runtime' in choice) say(`read_slang runs under ${choice.runtime.label}: ${choice.runtime.command}`);
  else {
    say(`no runtime for read_slang: ${choice.reason}`);
    process.exitCode = 1;
  }
});
