/** Types of scripts/typecheck-indexed.mjs, for the test that checks it. */
import type { Diagnostic } from 'typescript';

export const CHECKED_FOLDERS: string[];
export function indexedAccessDiagnostics(options?: { root?: string; files?: Record<string, string> }): Diagnostic[];
export function formatDiagnostics(diagnostics: readonly Diagnostic[], root?: string): string;
