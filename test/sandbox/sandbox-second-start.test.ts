import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { claimSandboxFolder } from '../../sandbox/sandbox-state.ts';
import { StartFailure } from '../../edge/settings.ts';
import { runCli, spawnListener } from '../helpers/process.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

test('a second `service start` in a running sandbox\'s folder leaves its files intact and says a sandbox already runs there', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-twice-'));
  const first = await spawnListener({ MERCHANT_BTC_XPUB: '' }, dir);
  try {
    const state = join(dir, 'data', 'sandbox.json');
    await waitForWatcher('the first sandbox\'s state file', async () => existsSync(state), (written) => written, { watcher: async () => first.output().slice(-2000), timeoutMs: 30_000 });
    const created = await fetch(`${first.url}/invoice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount_sats":50000}' });
    assert.equal(created.status, 201);
    const { invoice_id } = (await created.json()) as { invoice_id: string };
    const database = join(dir, 'data', 'sandbox.db');
    const before = { state: readFileSync(state, 'utf8'), inode: statSync(database).ino };

    // Free ports of its own, so nothing but the folder stands in its way (the bug removed the files, then failed on a port).
    const second = await runCli(['start'], { cwd: dir, env: { PORT: '0', SANDBOX_CHAIN_PORT: '0' }, timeoutMs: 60_000 });
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, new RegExp(`A sandbox already runs in this folder \\(process ${first.child.pid}, serving ${first.url.replaceAll('.', '\\.')}\\)`));
    assert.match(second.stderr, /its database and state files are left as they are/);

    assert.equal(readFileSync(state, 'utf8'), before.state, 'the state file is the running sandbox\'s');
    assert.equal(statSync(database).ino, before.inode, 'the same database file, never removed and made again');
    const read = await fetch(`${first.url}/invoice/${invoice_id}`);
    assert.equal(read.status, 200, 'the running sandbox still reads its invoice');
  } finally {
    assert.equal(await first.stop(), 0);
  }
  assert.equal(existsSync(join(dir, 'data', 'sandbox.lock')), false, 'the claim ends with the sandbox');
});

test("the folder's claim: a live holder refuses, a killed one's claim is taken over, and giving it up frees the folder", () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-claim-'));
  const lock = join(dir, 'data', 'sandbox.lock');
  const state = join(dir, 'data', 'sandbox.json');
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  try {
    const release = claimSandboxFolder(lock, state);
    assert.throws(() => claimSandboxFolder(lock, state), /still starting/, 'this process holds it');
    release();
    assert.equal(existsSync(lock), false);

    writeFileSync(lock, JSON.stringify({ pid: holder.pid }));
    assert.throws(() => claimSandboxFolder(lock, state), (error: Error) => error instanceof StartFailure && error.message.includes(`process ${holder.pid}, still starting`));
    assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, holder.pid, 'a refused start leaves the claim alone');

    // What a sandbox killed with SIGKILL leaves: the pid of a process that has exited.
    writeFileSync(lock, JSON.stringify({ pid: spawnSync(process.execPath, ['-e', '']).pid }));
    const taken = claimSandboxFolder(lock, state);
    assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, process.pid);
    taken();
  } finally {
    holder.kill();
  }
});
