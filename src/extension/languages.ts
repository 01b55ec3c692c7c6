/** Languages CHORUS works on; contributed in package.json too, since VS Code ships no Verilog support. */
export const HDL_LANGUAGES = ['verilog', 'systemverilog'] as const;

/** Design file extensions, for documents another extension gave a different language id. */
export const HDL_FILE = /\.(s?v|svh|vh)$/i;

/** True for a Verilog or SystemVerilog design document (by language id, or by file name). */
export function isHdlDocument(doc: { languageId: string; uri: { path: string } }): boolean {
  return (HDL_LANGUAGES as readonly string[]).includes(doc.languageId) || HDL_FILE.test(doc.uri.path);
}
