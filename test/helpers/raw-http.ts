import { connect } from 'node:net';

/**
 * Writes raw bytes to a server, half-closes, and returns everything it sent before closing (latin1,
 * so any byte survives). For requests `fetch` refuses to send: oversized, malformed, without Host.
 */
export function rawExchange(url: string, request: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close first after answering a request it could not read to the end.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}
