/** The one item of a real-IP items.jsonl that a single-item bench runs, with its design read from its filelist. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { itemDesign } from '../src/cli/bench/run';
import { parseItems, type BenchItem } from '../src/cli/bench/schema';

/** The item `id` of `items` (a path), its design (files, include folders, defines, parameters) read; throws if none. */
export async function designItem(items: string, id: string) {
  const path = resolve(items);
  const item: BenchItem | undefined = parseItems(readFileSync(path, 'utf8'), dirname(path)).flatMap((l) =>
    l.ok && l.item.id === id && l.item.design ? [l.item] : [],
  )[0];
  if (!item?.design) throw new Error(`${items}: no item '${id}' with a filelist design`);
  return { item, design: await itemDesign(item.design) };
}
