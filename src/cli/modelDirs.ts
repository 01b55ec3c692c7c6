/** Where the CLI looks for models: the project's models/ folder, then ./models in the working directory. */
import { join, resolve } from 'node:path';

/** The installation's models/ folder first (where downloads go), then ./models when it is another folder. */
export function cliModelDirs(): [string, ...string[]] {
  const installed = join(__dirname, '..', 'models');
  const here = resolve('models');
  return here === installed ? [installed] : [installed, here];
}

export function cliManifestPath(): string {
  return join(__dirname, '..', 'models', 'manifest.json');
}
