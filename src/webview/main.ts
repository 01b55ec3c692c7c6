/** The chat panel's browser bundle: styles, the VS Code web components it uses, and the app. */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import '@vscode-elements/elements/dist/vscode-radio/index.js';
import '@vscode-elements/elements/dist/vscode-radio-group/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import styles from './panel.css';
import { PanelApp } from './app';
import type { PanelModel } from './model';
import { getVsCodeApi } from './vscodeApi';

// A constructed stylesheet needs no inline <style>, so the CSP stays free of 'unsafe-inline'.
const sheet = new CSSStyleSheet();
sheet.replaceSync(styles);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app');
if (!root) throw new Error('The panel page has no #app element: render it with renderPanelHtml().');
new PanelApp(root, getVsCodeApi<PanelModel>()).start();
