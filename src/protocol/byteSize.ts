/** Byte sizes as users write them in settings and flags (`4G`, `1536M`), read and shown the same everywhere. */

const UNITS: Record<string, number> = { '': 1024 ** 2, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * A size as users write it: `4G`, `4GiB`, `4 GB`, `512M`, `1.5g`, `100k`, `123b`; a bare number means MiB.
 * Binary units throughout (a `G` is 2^30 bytes). Undefined for anything else.
 */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtb]?)(?:i?b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const [, amount, unit = ''] = m;
  const scale = UNITS[unit.toLowerCase()];
  if (amount === undefined || scale === undefined) return undefined;
  const bytes = Math.floor(Number(amount) * scale);
  return bytes > 0 && Number.isFinite(bytes) ? bytes : undefined;
}

/** `4 GiB`, `1.5 GiB`, `512 MiB`, `12 KiB`, `100 B`. */
export function formatBytes(bytes: number): string {
  const units: [string, number][] = [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ];
  for (const [name, size] of units) {
    if (bytes >= size) {
      const n = bytes / size;
      return `${Number.isInteger(n) || n >= 100 ? Math.round(n) : n.toFixed(1)} ${name}`;
    }
  }
  return `${bytes} B`;
}
