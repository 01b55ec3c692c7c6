/**
 * The waivers that stand when a run starts: the file's entries re-anchored as the run's check will re-anchor them
 * (check.ts), so a point a current entry names counts as excluded while the run goes on, and the run stops on the
 * verdict its result will get. An entry whose text changed stands only after the check (its proof, or a person).
 */
import { dirname, resolve } from 'node:path';
import { readSourceText } from '../../hdl';
import type { CoveragePoint } from '../../protocol';
import { instanceBelow } from '../closure/ledger';
import { anchorEntry, namesPoint } from './check';
import type { WaiverEntry } from './file';

/** The standing entry that waives an uncovered point; undefined for a covered or unwaived one. */
export type WaiverOf = (p: CoveragePoint) => WaiverEntry | undefined;

export const NO_WAIVERS: WaiverOf = () => undefined;

export async function standingWaivers(file: string, entries: WaiverEntry[], dutInstance: string): Promise<WaiverOf> {
  const base = dirname(file);
  const instanceOf = (p: CoveragePoint) => instanceBelow(p.hierarchy, dutInstance) ?? p.hierarchy;
  const key = (f: string, line: number, kind: string) => `${f}\u0000${line}\u0000${kind}`;
  const byPlace = new Map<string, { entry: WaiverEntry; names: (p: CoveragePoint) => boolean }[]>();
  const texts = new Map<string, string[] | undefined>();
  for (const original of entries) {
    const entry = { ...original };
    const f = resolve(base, entry.file);
    if (!texts.has(f)) texts.set(f, (await readSourceText(f).catch(() => undefined))?.split('\n'));
    const lines = texts.get(f);
    const at = lines && anchorEntry(entry, lines);
    if (at === undefined) continue;
    const k = key(f, at, entry.kind);
    const list = byPlace.get(k) ?? [];
    list.push({ entry, names: namesPoint(entry, f, at, instanceOf) });
    byPlace.set(k, list);
  }
  if (!byPlace.size) return NO_WAIVERS;
  return (p) =>
    p.count > 0 ? undefined : byPlace.get(key(resolve(p.file), p.line, p.kind))?.find((s) => s.names(p))?.entry;
}
