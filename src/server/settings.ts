/** `chorus.*` settings as the server reads them: per resource from `workspace/configuration`, never cached. */
import type { Connection } from 'vscode-languageserver';
import {
  DEFAULT_SETTINGS,
  NO_DESIGN_SETTINGS,
  parseDesignSettings,
  readSettings as parseSettings,
  SETTINGS_SECTION,
  type ChorusSettings,
  type DesignSettings,
} from '../protocol';

/** `warn` hears of a value that falls back to its default (see the protocol's `readSettings`). */
export async function readSettings(
  connection: Connection,
  uri: string | undefined,
  supported: boolean,
  warn?: (message: string) => void,
): Promise<ChorusSettings> {
  if (!supported) return { ...DEFAULT_SETTINGS };
  const raw: unknown = await connection.workspace.getConfiguration({
    ...(uri !== undefined ? { scopeUri: uri } : {}),
    section: SETTINGS_SECTION,
  });
  // The client's answer is untrusted JSON: `parseSettings` checks each value and falls back to its default.
  const values = new Map<string, unknown>(typeof raw === 'object' && raw !== null ? Object.entries(raw) : []);
  return parseSettings({ get: (key) => values.get(key) }, warn);
}

/** The design settings for a document (`uri`); none when the client has no `workspace/configuration`. */
export async function readDesignSettings(
  connection: Connection,
  uri: string | undefined,
  supported: boolean,
): Promise<DesignSettings> {
  if (!supported) return NO_DESIGN_SETTINGS;
  const raw: unknown = await connection.workspace.getConfiguration({
    ...(uri !== undefined ? { scopeUri: uri } : {}),
    section: SETTINGS_SECTION,
  });
  const values = new Map<string, unknown>(typeof raw === 'object' && raw !== null ? Object.entries(raw) : []);
  return parseDesignSettings({ get: (key) => values.get(key) });
}
