/** `chorus/tops` and `chorus/filelistsFor`: what the design of a document is made of. */
import { findTops, topsOf } from '../../engine';
import {
  NO_DESIGN_SETTINGS,
  type FilelistsForParams,
  type FilelistsForResult,
  type TopsParams,
  type TopsResult,
} from '../../protocol';
import { folderOf, readWorkspaceFilelist } from '../design';
import { uriToPath } from '../uris';
import type { RequestContext } from './context';

export async function tops(ctx: RequestContext, p: TopsParams): Promise<TopsResult> {
  const doc = ctx.documents.get(p.uri);
  return doc ? topsOf(await ctx.analysisOf(doc)) : findTops(uriToPath(p.uri));
}

export async function filelistsFor(ctx: RequestContext, p: FilelistsForParams): Promise<FilelistsForResult> {
  const file = uriToPath(p.uri);
  const lists: string[] = [];
  const { projectTargets } = await ctx.designSettings(p.uri).catch(() => NO_DESIGN_SETTINGS);
  for (const list of p.lists) {
    const path = uriToPath(list);
    // Read as a run would read it (a project file with the targets set); a list that does not read is no candidate.
    const fl = await readWorkspaceFilelist(path, folderOf(path, ctx.folders()), projectTargets).catch(() => undefined);
    if (fl?.files.includes(file)) lists.push(list);
  }
  return { lists };
}
