// `node --import tsx test/helpers/package-vsix.ts`: packages the test VSIX for the current dist/ (or finds it
// cached) and prints its path. scripts/test.mjs runs it once before the suites that install the VSIX.
import { productVsix } from './vsix';

productVsix().then(
  (vsix) => process.stdout.write(`${vsix}\n`),
  (err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
  },
);
