// Native addons built from source (tree-sitter here; code-server's for the end-to-end tests) need Node's headers.
// node-gyp downloads them from nodejs.org unless told where they are; the running Node's own headers (Debian and
// NodeSource packages and the official tarballs ship them) work offline and always match.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Environment for an npm child that may build addons: `npm_config_nodedir`, unless npm already has one. */
export function nodeHeadersEnv(say) {
  if (process.env.npm_config_nodedir) return {};
  const configured = spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).stdout?.trim();
  if (configured && configured !== 'undefined' && configured !== 'null') return {};
  const prefix = dirname(dirname(process.execPath));
  if (!existsSync(join(prefix, 'include', 'node', 'node_api.h'))) return {};
  say(`native addons build against the headers in ${prefix}/include/node`);
  return { npm_config_nodedir: prefix };
}
