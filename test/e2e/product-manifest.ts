/** The product under test as its manifest names it: the extension id and the palette titles of its commands. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './install';

interface Manifest {
  name: string;
  publisher: string;
  contributes?: { commands?: { command: string; title: string; category?: string }[] };
}

function manifest(): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
}

/** `publisher.name`, as VS Code names the extension (webview frames carry it as `extensionId=`). */
export function productExtensionId(): string {
  const m = manifest();
  return `${m.publisher}.${m.name}`;
}

/** The palette title of a contributed command (`Category: Title`), from package.json `contributes.commands`. */
export function commandTitle(id: string): string {
  const c = manifest().contributes?.commands?.find((x) => x.command === id);
  if (!c)
    throw new Error(`package.json contributes no command ${id}: the product test drives the palette by its title.`);
  return c.category ? `${c.category}: ${c.title}` : c.title;
}
