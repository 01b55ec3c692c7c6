/** The language server entry: `node dist/server.js --stdio`. */
export {};
