import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { releasedPort } from './ports.ts';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (initdb and pg_ctl from the installed binaries, in a
 * temporary directory, on a free port), so a test can stop, restart or cut it without disturbing
 * any other test. The binaries refuse to run as root: as root they run as the `postgres` user.
 */
export interface PrivatePostgres {
  /** postgres://…/postgres on 127.0.0.1, trust authentication. */
  url: string;
  port: number;
  start(): Promise<void>;
  /** A fast shutdown: every connection is ended, the port closes. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** pg_terminate_backend of every other client connection (what a failover does to them); how many it ended. */
  terminateAll(): Promise<number>;
  /** The server's log, for failure messages. */
  log(): string;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/** The newest installed PostgreSQL's bin directory, or null when none is installed. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

/** Why the private-Postgres tests cannot run here, or undefined when they can. */
export const privatePostgresSkip = postgresBinDir() ? undefined : 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin';

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(privatePostgresSkip);
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'private-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args], { cwd: dir }) : run(join(bin, name), args, { cwd: dir });
  await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await releasedPort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let running = false;

  const server: PrivatePostgres = {
    url,
    port,
    async start() {
      await tool('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop() {
      await tool('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    async restart() {
      await server.stop();
      await server.start();
    },
    async terminateAll() {
      const admin = new pg.Client({ connectionString: url });
      admin.on('error', () => undefined);
      await admin.connect();
      try {
        const { rows } = await admin.query(
          "select count(pg_terminate_backend(pid))::int as ended from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'",
        );
        return rows[0].ended as number;
      } finally {
        await admin.end();
      }
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async destroy() {
      if (running) await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return server;
}
