/** What a GGUF file is, read from its header: no model load, no network. */
import { stat } from 'node:fs/promises';
import { ChorusError } from '../../protocol';
import { loadNodeLlamaCpp } from '../local/nodeLlamaCpp';
import { checkGgufHeader } from './ggufHeader';

export interface ModelInfo {
  architecture: string;
  /** Weights, counted from the tensor shapes. */
  parameters?: number | undefined;
  /** `Q4_K_M`, `F16`, `F32`… from general.file_type. */
  quantization?: string | undefined;
  /** The trained context length. */
  contextLength?: number | undefined;
  /** The file carries a chat template (tokenizer.chat_template). */
  chatTemplate: boolean;
  sizeBytes: number;
  name?: string | undefined;
}

export async function modelInfo(path: string): Promise<ModelInfo> {
  await checkGgufHeader(path);
  const sizeBytes = (await stat(path)).size;
  const { readGgufFileInfo, GgufFileType } = await loadNodeLlamaCpp();
  let info: Awaited<ReturnType<typeof readGgufFileInfo>>;
  try {
    info = await readGgufFileInfo(path, { logWarnings: false });
  } catch (err) {
    throw new ChorusError('bad_input', `${path} is not a readable GGUF model (${(err as Error).message}): download it again or check the path.`, { file: path });
  }
  const meta = info.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
  const general = meta.general ?? {};
  const architecture = String(general.architecture ?? 'unknown');
  const contextLength = Number(meta[architecture]?.context_length);
  const fileType = general.file_type;
  const typeName = typeof fileType === 'number' ? (GgufFileType as unknown as Record<number, string>)[fileType] : undefined;
  const parameters = info.tensorInfo?.reduce((sum, t) => sum + t.dimensions.reduce<number>((n, d) => n * Number(d), 1), 0);
  return {
    architecture,
    parameters: parameters || undefined,
    quantization: typeName?.replace(/^(MOSTLY|ALL)_/, ''),
    contextLength: Number.isFinite(contextLength) && contextLength > 0 ? contextLength : undefined,
    chatTemplate: typeof meta.tokenizer?.chat_template === 'string' && meta.tokenizer.chat_template.length > 0,
    sizeBytes,
    name: typeof general.name === 'string' ? general.name : undefined,
  };
}
