import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes a `replay:` model file answering with these replies in order; returns the `replay:<path>` URI. */
export function replayModel(responses: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-replay-'));
  const file = join(dir, 'replay.json');
  writeFileSync(file, JSON.stringify({ responses }));
  return `replay:${file}`;
}

export function fileReply(code: string, filename = 'tb_fifo.sv'): string {
  return `filename: ${filename}\n\`\`\`systemverilog\n${code}\n\`\`\`\n`;
}
