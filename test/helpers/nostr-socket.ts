import { WebSocket } from 'ws';

/** A relay message as received: a JSON array, or the raw text when it is not JSON. */
export type RelayMessage = unknown[] | { raw: string };

/**
 * A bare NIP-01 client socket for tests: sends arrays, and waits for the relay's next message that
 * matches, so a test waits on what the relay says and never on time.
 */
export async function openNostrSocket(url: string) {
  const socket = new WebSocket(url);
  const received: RelayMessage[] = [];
  const waiters = new Set<{ match(message: RelayMessage): boolean; resolve(message: RelayMessage): void }>();
  let consumed = 0;
  socket.on('message', (data) => {
    const text = data.toString();
    let message: RelayMessage;
    try {
      const parsed: unknown = JSON.parse(text);
      message = Array.isArray(parsed) ? parsed : { raw: text };
    } catch {
      message = { raw: text };
    }
    received.push(message);
    for (const waiter of waiters) if (waiter.match(message)) (waiters.delete(waiter), waiter.resolve(message));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  return {
    socket,
    received,
    closed,
    send(message: unknown[] | string) {
      socket.send(typeof message === 'string' ? message : JSON.stringify(message));
    },
    /** The first message from now on (or already received and not yet taken) that matches. */
    next(match: (message: unknown[]) => boolean, timeoutMs = 5000): Promise<unknown[]> {
      const isMatch = (message: RelayMessage) => Array.isArray(message) && match(message);
      const index = received.findIndex((message, at) => at >= consumed && isMatch(message));
      if (index >= 0) return Promise.resolve(received[index] as unknown[]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => (waiters.delete(waiter), reject(new Error('no matching relay message'))), timeoutMs);
        const waiter = { match: isMatch, resolve: (message: RelayMessage) => (clearTimeout(timer), resolve(message as unknown[])) };
        waiters.add(waiter);
      });
    },
    /** Forgets what was received so far: later `next` and `receivedSinceSkip` see only newer messages. */
    skipReceived() {
      consumed = received.length;
    },
    receivedSinceSkip: () => received.slice(consumed),
    close() {
      socket.close();
      return closed;
    },
  };
}

export type NostrSocket = Awaited<ReturnType<typeof openNostrSocket>>;
