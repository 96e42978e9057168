import { createServer } from 'node:net';

/** A loopback port free right now (bound once, then released): for a port a child process must be told in advance. */
export async function releasedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
