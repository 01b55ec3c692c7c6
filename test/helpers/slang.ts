/** Runs `fn` with CHORUS_FORMAL_SLANG set to `value` (the formal engine reads the variable at each run). */
export async function withSlang<T>(value: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env.CHORUS_FORMAL_SLANG;
  if (value === undefined) delete process.env.CHORUS_FORMAL_SLANG;
  else process.env.CHORUS_FORMAL_SLANG = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.CHORUS_FORMAL_SLANG;
    else process.env.CHORUS_FORMAL_SLANG = before;
  }
}
