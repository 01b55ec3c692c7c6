/** Shared by the llm tests: a logger that remembers, a loopback HTTP server. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../src/protocol';

export interface MemoryLogger extends Logger {
  lines: { level: string; message: string }[];
  text(): string;
}

export function memoryLogger(): MemoryLogger {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () => lines.map((l) => `${l.level}: ${l.message}`).join('\n'),
  };
}

export interface Loopback {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 (a free port) for the test's handler. */
export async function loopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}
