// `npm run demo`: closes coverage on an example design with the default engine (the model-free search unless a
// model is configured or found in models/), live on the terminal. Exits with the CLI's own code.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const example = process.env.CHORUS_DEMO_EXAMPLE ?? 'fifo';
const outDir = join('.chorus', 'demo');
mkdirSync(outDir, { recursive: true });
const args = [
  'dist/cli.js',
  'generate',
  `examples/${example}/${example}.sv`,
  '--spec',
  `examples/${example}/${example}.md`,
  '--target',
  'line=100,branch=100,toggle=100',
  '--out',
  join(outDir, `tb_${example}.sv`),
  ...process.argv.slice(2),
];
process.stderr.write(`$ chorus ${args.slice(1).join(' ')}\n`);
const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(r.status ?? 1);
