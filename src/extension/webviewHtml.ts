/** The chat panel's HTML shell: a strict Content-Security-Policy, the bundle loaded as a nonce'd module. */
export interface PanelHtmlOptions {
  /** `webview.asWebviewUri(…/dist/webview/panel.js)`: an ES module. */
  scriptUri: string;
  /** An extra stylesheet (the panel's own styles are in its script). */
  styleUri?: string;
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random nonce per render ({@link createNonce}). */
  nonce: string;
  title: string;
  /** Classic scripts run before the panel (a test's stand-in for `acquireVsCodeApi`); they get the nonce too. */
  preloadScriptUris?: string[];
}

function escapeAttr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A nonce for {@link renderPanelHtml}: 128 random bits, base64url. */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The Content-Security-Policy of the panel: nothing but the nonce'd scripts and the host's own resources. */
export function panelCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The panel's HTML document: a strict CSP, no inline script, the bundle loaded as a nonce'd module. */
export function renderPanelHtml(opts: PanelHtmlOptions): string {
  if (!/^[A-Za-z0-9+/_=-]{16,}$/.test(opts.nonce)) {
    throw new Error('renderPanelHtml: the nonce must be 16 or more base64 characters (use createNonce()).');
  }
  const nonce = escapeAttr(opts.nonce);
  const style = opts.styleUri ? `\n  <link rel="stylesheet" href="${escapeAttr(opts.styleUri)}">` : '';
  const preload = (opts.preloadScriptUris ?? [])
    .map((uri) => `\n  <script nonce="${nonce}" src="${escapeAttr(uri)}"></script>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeAttr(panelCsp(opts.cspSource, opts.nonce))}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <title>${escapeAttr(opts.title)}</title>${style}${preload}
  <script type="module" nonce="${nonce}" src="${escapeAttr(opts.scriptUri)}"></script>
</head>
<body>
  <div id="app"></div>
</body>
</html>
`;
}
