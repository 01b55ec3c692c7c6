/** When and how long to wait before retrying an HTTP call: exponential backoff, honouring Retry-After. */
import { ChorusError } from '../../protocol';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay; doubles each retry. */
  baseMs: number;
  /** No single wait is longer than this (Retry-After included). */
  maxWaitMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 4, baseMs: 1000, maxWaitMs: 60_000 };

/** 429 and the 5xx statuses that mean "try again" (not 501 Not Implemented). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status < 600);
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before retry number `attempt` (0-based): Retry-After when given, else base·2^attempt with jitter. */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterMs?: number, random = Math.random): number {
  const wait = retryAfterMs ?? policy.baseMs * 2 ** attempt * (0.75 + random() * 0.5);
  return Math.min(policy.maxWaitMs, Math.max(0, Math.round(wait)));
}

/** Resolves after `ms`, or rejects with ChorusError('cancelled') as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ChorusError('cancelled', 'Cancelled.'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ChorusError('cancelled', 'Cancelled.'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
