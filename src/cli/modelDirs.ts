/** Where the CLI looks for models: the project's models/ folder, then ./models in the working directory. */
import { join, resolve } from 'node:path';

export function cliModelDirs(): string[] {
  const dirs = [join(__dirname, '..', 'models'), resolve('models')];
  return [...new Set(dirs)];
}

export function cliManifestPath(): string {
  return join(__dirname, '..', 'models', 'manifest.json');
}
