import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface Finished {
  /** The command's exit status; null when the session was killed or ended. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * One bash session that runs commands one after another, as a person types them into one terminal:
 * a variable a command sets (`ID=$(…)`) is there for the next. Each command reads no stdin (the
 * session's own stdin carries the commands), and its end is told by a marker line the session
 * prints after it on stdout (with the exit status) and on stderr.
 */
export class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private ended = false;
  private wake: () => void = () => {};
  private readonly exited: Promise<void>;

  constructor(cwd: string, env: Record<string, string>) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdin.on('error', () => {}); // a write after the session died: `ended` tells the caller
    this.child.stdout.on('data', (d) => ((this.stdout += d), this.wake()));
    this.child.stderr.on('data', (d) => ((this.stderr += d), this.wake()));
    this.exited = new Promise((resolve) =>
      this.child.on('close', () => {
        this.ended = true;
        this.wake();
        resolve();
      }),
    );
  }

  /** Runs one command line in the session; on timeout the session and everything it started is killed. */
  async run(command: string, timeoutMs = 90_000): Promise<Finished> {
    if (this.ended) return { code: null, stdout: '', stderr: 'the shell session has ended' };
    const token = `__shell_session_${randomBytes(8).toString('hex')}`;
    const done = new RegExp(`\\n${token} (\\d+)\\n`);
    this.child.stdin.write(`{ ${command}\n} </dev/null; printf '\\n${token} %d\\n' $?; printf '\\n${token}\\n' >&2\n`);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.kill();
    }, timeoutMs);
    try {
      while (!this.ended && !(done.test(this.stdout) && this.stderr.includes(`\n${token}\n`))) {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      clearTimeout(timer);
    }
    const status = done.exec(this.stdout);
    if (!status) {
      const why = timedOut ? `(killed after ${timeoutMs} ms)` : '(the shell session ended)';
      return { code: null, stdout: this.stdout, stderr: `${this.stderr}\n${why}` };
    }
    const stdout = this.stdout.slice(0, status.index);
    this.stdout = this.stdout.slice(status.index + status[0].length);
    const stderrEnd = this.stderr.indexOf(`\n${token}\n`);
    const stderr = this.stderr.slice(0, stderrEnd);
    this.stderr = this.stderr.slice(stderrEnd + token.length + 2);
    return { code: Number(status[1]), stdout, stderr };
  }

  /** Ends the session: bash exits at the end of its input; whatever is left of its process group is killed. */
  async close(): Promise<void> {
    if (!this.ended) this.child.stdin.end();
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    this.kill();
  }

  private kill(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
}
