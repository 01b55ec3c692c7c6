/** Languages CHORUS works on; contributed in package.json too, since VS Code ships no Verilog support. */
export const HDL_LANGUAGES = ['verilog', 'systemverilog'] as const;

/** Design file extensions, for documents another extension gave a different language id. */
export const HDL_FILE = /\.(s?v|svh|vh)$/i;
