/** A reply turned into a candidate testbench: a whole file, hunks patched onto the best one, or the best one kept. */
import { basename } from 'node:path';
import type { Attempt } from './attempt';
import { withDutParameters } from './dutParameters';
import { applyPatch } from './patch';
import type { Bullets } from './prompt';
import { parseReply, stripThinking, type ParsedReply } from './reply';
import type { RoundStatus } from '../../protocol';

/** How the reply ended, as the backend said. */
export interface ReplyEnding {
  finishReason: 'stop' | 'length' | 'abort' | 'interrupted';
  completionTokens: number;
  /** The backend's words for an incomplete reply (a stream cut short). */
  note?: string | undefined;
}

export interface Candidate {
  parsed: ParsedReply;
  /** The testbench to measure; null when the reply gave none. */
  testbench: string | null;
  filename: string;
  /** Feedback bullets for the parse and, for a patch, its application. */
  parseBullets: Bullets;
  applyBullets?: Bullets;
  /** One line for the `parsed` event. */
  outcome: string;
  /** Why there is nothing to measure (set exactly when `testbench` is null). */
  status?: Exclude<RoundStatus, 'ok' | 'compile_error' | 'sim_error' | 'timeout' | 'rejected' | 'resource_limit'>;
  /** The next instruction for a reply with nothing to measure. */
  instruction?: string;
}

const ANSWER_FORMAT = 'a filename line, then one ```systemverilog code block holding the complete testbench';

/** A reply that cannot be measured as it stands: empty, or cut before its code was complete. */
function unusable(
  replyText: string,
  parsed: ParsedReply,
  ending: ReplyEnding | undefined,
  filename: string,
): Candidate | null {
  const cut = ending && (ending.finishReason === 'length' || ending.finishReason === 'interrupted');
  const answer = stripThinking(replyText).text.trim();
  const why =
    ending?.finishReason === 'interrupted'
      ? (ending.note ?? 'the reply stream was cut short')
      : `the reply reached the token limit (${ending?.completionTokens ?? 0} tokens)`;
  const incompleteCode = parsed.type === 'file' && parsed.notes.includes('the code block was not closed');
  if (cut && (parsed.type === 'none' || incompleteCode)) {
    const where = answer ? 'before the code was complete' : 'while still thinking, before any answer';
    return {
      parsed,
      testbench: null,
      filename,
      status: 'truncated',
      parseBullets: { status: 'failed', type: 'file', reason: `truncated: ${why} ${where}; nothing was compiled` },
      outcome: `reply cut short (${ending.finishReason}): nothing compiled`,
      instruction: `Your reply was cut off before the testbench was complete. Answer again with ${ANSWER_FORMAT}, shorter: no explanations, compact stimulus loops.`,
    };
  }
  if (!answer && parsed.type !== 'no_changes') {
    const onlyThinking = replyText.trim() !== '';
    return {
      parsed,
      testbench: null,
      filename,
      status: 'empty_reply',
      parseBullets: {
        status: 'failed',
        type: 'file',
        reason: onlyThinking ? 'the reply held only thinking and no answer' : 'the reply was empty',
      },
      outcome: onlyThinking ? 'reply held only thinking' : 'empty reply',
      instruction: `Your reply had no answer. Answer with ${ANSWER_FORMAT}.`,
    };
  }
  return null;
}

function safeFilename(name: string | null, top: string): string {
  const base = name ? basename(name.trim()) : '';
  return /^[A-Za-z0-9_.-]+\.(sv|v)$/.test(base) ? base : `tb_${top}.sv`;
}

/**
 * `parameters`: the top parameter overrides (`-G`); every DUT instantiation in the candidate is given them
 * (withDutParameters), whatever the model wrote for them.
 */
export function parseAndPatch(
  replyText: string,
  best: Attempt | null,
  top: string,
  ending?: ReplyEnding,
  parameters?: Record<string, string>,
): Candidate {
  const candidate = parseOnly(replyText, best, top, ending);
  if (!candidate.testbench || !parameters || !Object.keys(parameters).length) return candidate;
  return { ...candidate, testbench: withDutParameters(candidate.testbench, top, parameters).testbench };
}

function parseOnly(replyText: string, best: Attempt | null, top: string, ending?: ReplyEnding): Candidate {
  const parsed = parseReply(replyText);
  const filename = best?.filename ?? `tb_${top}.sv`;
  const cannot = unusable(replyText, parsed, ending, filename);
  if (cannot) return cannot;
  switch (parsed.type) {
    case 'file': {
      const name = safeFilename(parsed.filename, top);
      return {
        parsed,
        testbench: parsed.code,
        filename: name,
        parseBullets: {
          status: 'success',
          type: 'file',
          filename: name,
          ...(parsed.notes.length ? { notes: parsed.notes.join('; ') } : {}),
        },
        outcome: `parsed a whole testbench (${name})`,
      };
    }
    case 'patch': {
      const parseBullets: Bullets = { status: 'success', type: 'patch', hunks: String(parsed.hunks.length) };
      const base = best?.testbench;
      if (!base) {
        return {
          parsed,
          testbench: null,
          filename,
          status: 'patch_failed',
          instruction: `There is no testbench to patch yet: answer with ${ANSWER_FORMAT}.`,
          parseBullets,
          applyBullets: { status: 'failed', reason: 'there is no current testbench to patch; send the whole file' },
          outcome: 'patch with no testbench to apply it to',
        };
      }
      const applied = applyPatch(base, parsed.hunks);
      const failed = applied.failures.map((f) => `hunk ${f.hunk}: ${f.reason}`).join('; ');
      return {
        parsed,
        testbench: applied.applied ? applied.content : null,
        filename,
        ...(applied.applied
          ? {}
          : {
              status: 'patch_failed' as const,
              instruction: `No hunk applied: copy the context lines exactly from the current testbench, or answer with ${ANSWER_FORMAT}.`,
            }),
        parseBullets,
        applyBullets: {
          status: applied.failures.length === 0 ? 'success' : applied.applied ? 'partial' : 'failed',
          applied: `${applied.applied}/${parsed.hunks.length} hunks`,
          ...(failed ? { failed } : {}),
        },
        outcome: `patch: ${applied.applied}/${parsed.hunks.length} hunks applied${failed ? ` (${failed})` : ''}`,
      };
    }
    case 'no_changes':
      if (!best?.testbench) {
        return {
          parsed,
          testbench: null,
          filename,
          status: 'no_code',
          parseBullets: { status: 'failed', type: 'no_changes', reason: 'there is no testbench yet to keep' },
          outcome: 'NO_CHANGES with no testbench',
          instruction: `There is no testbench yet: answer with ${ANSWER_FORMAT}.`,
        };
      }
      return {
        parsed,
        testbench: best.testbench,
        filename,
        parseBullets: { status: 'success', type: 'no_changes' },
        outcome: 'NO_CHANGES',
      };
    default:
      return {
        parsed,
        testbench: null,
        filename,
        status: 'no_code',
        parseBullets: { status: 'failed', type: 'file', reason: parsed.reason },
        outcome: `no testbench: ${parsed.reason}`,
        instruction: `Answer with ${ANSWER_FORMAT}.`,
      };
  }
}
