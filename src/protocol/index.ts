export * from './errors';
export * from './logger';
export * from './coverage';
export * from './hdl';
export * from './loop';
export * from './model';
export * from './lsp';
export * from './webview';
