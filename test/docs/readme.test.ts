/**
 * Every code block of the README and of the pages in docs/ runs as written, parses, or says why it
 * is not run (test/helpers/readme-blocks.ts says how a block is marked). The shell blocks marked
 * `run` run in order (the README's, then each page's), against one sandbox started with
 * `npm start`: on free ports instead of 8787 and 18443 (PORT and SANDBOX_CHAIN_PORT are set, and
 * `127.0.0.1:8787` in a command reads as the sandbox's address). A block's commands run one by one
 * in one bash session, as a reader pastes them into one terminal, so a variable one line sets
 * (`ID=$(…)`) is there on the next, and blocks run in turn share the session as the walkthrough's
 * second terminal does. A command must exit 0 and not print an error envelope; one whose comment
 * names JSON (`# "status":"confirmed"`) is run again until its output holds it, as a person would.
 * The `receiver` block runs with plain node as the sandbox's webhook target.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { webhookDeliveryHeaders } from '../../core/webhooks/index.ts';
import { repoRoot, spawnChild, type Child } from '../helpers/child.ts';
import { releasedPort } from '../helpers/ports.ts';
import { classificationProblem, describeBlock, docPages, isShell, readmeBlocks, shellCommands, type Block, type ShellCommand } from '../helpers/readme-blocks.ts';
import { ShellSession, type Finished } from '../helpers/shell-session.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

const pages = docPages(repoRoot);
const blocks = pages.flatMap((page) => readmeBlocks(readFileSync(join(repoRoot, page), 'utf8'), page));
const runBlocks = blocks.filter((block) => block.kind === 'run');
// The Standard Webhooks page's two receivers import the standardwebhooks package and are run by
// their own test against the delivery worker (test/shared/standard-webhooks-docs.test.ts).
const PAGES_WITH_OWN_RECEIVER_TEST = new Set(['docs/standard-webhooks.md']);
const receiverBlocks = blocks.filter((block) => block.kind === 'receiver' && !PAGES_WITH_OWN_RECEIVER_TEST.has(block.file));

test('every code block of the README and docs/ is run, parsed as JSON, or marked with why it is not run', () => {
  const problems = blocks.flatMap((block) => {
    const problem = classificationProblem(block);
    return problem ? [`${describeBlock(block)}: ${problem}`] : [];
  });
  assert.ok(pages.length > 5 && pages.includes('docs/README.md'), `the manual's pages: ${pages.join(', ')}`);
  assert.deepEqual(problems, [], `code blocks to fix or mark:\n${problems.join('\n')}`);
  assert.equal(receiverBlocks.length, 1, 'one js block is the webhook receiver the sandbox delivers to (<!-- readme-test: receiver, with 9876 = … -->)');
  assert.ok(runBlocks.some((block) => block.file === 'README.md' && shellCommands(block).some((command) => command.text.startsWith('npm start'))), 'a README run block starts the sandbox with npm start');
  assert.ok(runBlocks.some((block) => block.file === 'README.md' && shellCommands(block).some((command) => /^ID=\$\(curl .*\| jq -r \.invoice_id\)$/.test(command.text))), 'the README walkthrough captures the invoice id with ID=$(curl … | jq -r .invoice_id)');
});

/** The error envelope a command printed (curl -s exits 0 on a 4xx), or null. */
function errorEnvelope(stdout: string): unknown {
  try {
    const parsed = JSON.parse(stdout);
    return parsed && typeof parsed === 'object' && 'error' in parsed ? parsed.error : null;
  } catch {
    return null;
  }
}

const compactJson = (text: string) => text.replace(/"\s*:\s*/g, '":');

describe('the README and docs run as written against a sandbox', { skip: existsSync(join(repoRoot, '.env')) && 'a .env in the repository root configures npm start; the README blocks run from a clean checkout' }, () => {
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  const work = mkdtempSync(join(tmpdir(), 'readme-'));
  const invoiceIds: string[] = [];
  let ports: { listener: number; chain: number; receiver: number };
  let env: Record<string, string>;
  let receiver: Child;
  let listener: Child;
  /** The second terminal of the walkthrough: one bash session for every block, in order. */
  let shell: ShellSession;

  /** The block's command as the test runs it: the sandbox's port, and the declared substitutions. */
  function substituted(block: Block, text: string): string {
    const out = text.replace(/\b(127\.0\.0\.1|localhost):8787\b/g, `$1:${ports.listener}`);
    return block.substitutions.has('9876') ? out.replace(/\b9876\b/g, String(ports.receiver)) : out;
  }

  const failure = (block: Block, command: ShellCommand, why: string, run: Finished) =>
    `${describeBlock(block)}, line ${command.line}: \`${command.text}\` ${why}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}\nlistener output (end): ${listener.stdout().slice(-1500)}${listener.stderr().slice(-1500)}`;

  async function runCommand(block: Block, command: ShellCommand): Promise<void> {
    if (command.text.replace(/\s#.*$/, '').trim() === 'npm start') return; // the session's listener, already started by `npm start`
    const line = substituted(block, command.text);
    const once = () => shell.run(line);
    const run = command.expects.length === 0
      ? await once()
      : await waitForWatcher(`${describeBlock(block)}, line ${command.line}: output holding ${command.expects.join(', ')}`, once, (r) => r.code !== 0 || command.expects.every((fragment) => compactJson(r.stdout).includes(fragment)), {
          watcher: async () => (await fetch(`http://127.0.0.1:${ports.listener}/health`)).json(),
          timeoutMs: 45_000,
          everyMs: 500,
        });
    assert.equal(run.code, 0, failure(block, command, `exited ${run.code}`, run));
    const envelope = errorEnvelope(run.stdout);
    assert.equal(envelope, null, failure(block, command, `answered an error: ${JSON.stringify(envelope)}`, run));
    for (const [, id] of run.stdout.matchAll(/"invoice_id"\s*:\s*"(inv_[\w-]+)"/g)) if (!invoiceIds.includes(id)) invoiceIds.push(id);
    // A URL the command prints for the reader to open (the payer's page) must open.
    const printedUrl = /^(http:\/\/127\.0\.0\.1:\d+\/\S*)\n?$/.exec(run.stdout)?.[1];
    if (printedUrl) {
      assert.ok(!/\/(pay|invoice|checkout)\/?$/.test(printedUrl), failure(block, command, `printed ${printedUrl}, a URL without its invoice id`, run));
      const page = await fetch(printedUrl);
      assert.equal(page.status, 200, failure(block, command, `printed ${printedUrl}, which answers ${page.status}`, run));
      if (/\/pay\//.test(printedUrl)) assert.match(await page.text(), /<html[\s>]/i, `${printedUrl} is the payer's HTML page`);
    }
  }

  async function runJs(block: Block): Promise<void> {
    const file = join(work, `block-${block.line}.mjs`);
    writeFileSync(file, substituted(block, block.lines.join('\n')));
    const run = await shell.run(`node ${file}`);
    assert.equal(run.code, 0, `${describeBlock(block)}: node exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  }

  before(async () => {
    ports = { listener: await releasedPort(), chain: await releasedPort(), receiver: await releasedPort() };
    env = {
      PATH: process.env.PATH ?? '',
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      PORT: String(ports.listener),
      SANDBOX_CHAIN_PORT: String(ports.chain),
    };
    // The README's receiver, with plain node (no TypeScript loader), from a folder outside the repository.
    const [block] = receiverBlocks;
    const file = join(work, 'receiver.mjs');
    writeFileSync(file, substituted(block, block.lines.join('\n')));
    receiver = spawnChild(process.execPath, [file], { MERCHANT_WEBHOOK_SECRET: secret });
    await waitForWatcher(
      `${describeBlock(block)} to listen on port ${ports.receiver}`,
      () => fetch(`http://127.0.0.1:${ports.receiver}/`, { method: 'POST' }).then((r) => r.status, () => 0),
      (status) => status !== 0 || receiver.process.exitCode !== null,
      { watcher: () => receiver.stderr(), timeoutMs: 30_000, everyMs: 100 },
    );
    assert.equal(receiver.process.exitCode, null, `the docs' receiver exited: ${receiver.stderr()}`);

    shell = new ShellSession(repoRoot, env);
    listener = spawnChild('npm', ['start'], { ...env, MERCHANT_WEBHOOK_URL: `http://127.0.0.1:${ports.receiver}/`, MERCHANT_WEBHOOK_SECRET: secret }, { detached: true });
    const [, url] = await listener.waitFor(/"msg":"listener started","url":"([^"]+)"/, 120_000);
    assert.equal(url, `http://127.0.0.1:${ports.listener}`);
    await listener.waitFor(/SANDBOX MODE/);
  });

  after(async () => {
    await shell?.close();
    if (listener?.process.exitCode === null) {
      listener.process.kill('SIGTERM'); // npm passes it on to the listener, which stops its chains
      await Promise.race([listener.exited, new Promise((resolve) => setTimeout(resolve, 20_000).unref())]);
    }
    // Whatever of npm's process group is left (nothing, when the stop went well).
    if (listener?.process.pid) {
      try {
        process.kill(-listener.process.pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
    }
    receiver?.process.kill('SIGTERM');
    await receiver?.exited;
  });

  for (const block of runBlocks) {
    it(`${describeBlock(block)} runs`, async () => {
      if (block.lang === 'js') return runJs(block);
      assert.ok(isShell(block.lang));
      for (const command of shellCommands(block)) await runCommand(block, command);
    });
  }

  it("the docs' webhook receiver accepts a signed delivery and refuses a tampered, legacy-only, unsigned or stale one", async () => {
    const body = JSON.stringify({ event: 'invoice.confirmed', event_id: 'evt_readme_direct', invoice_id: 'inv_readme_direct', amount: '0.00050000' });
    const post = (payload: string, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${ports.receiver}/`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });
    const signed = (now: number) => webhookDeliveryHeaders({ eventId: 'evt_readme_direct', attempt: 1, body, secret, now });
    const without = (headers: Record<string, string>, prefix: string) => Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(prefix)));
    const good = await post(body, signed(Date.now()));
    assert.equal(good.status, 200);
    assert.deepEqual(await good.json(), { ok: true });
    await receiver.waitFor(/^verified evt_readme_direct invoice\.confirmed inv_readme_direct$/m);

    const codeOf = async (res: Response) => [res.status, ((await res.json()) as { error: { code: string } }).error.code];
    assert.deepEqual(await codeOf(await post(body.replace('0.0005', '0.5000'), signed(Date.now()))), [401, 'invalid_signature']);
    assert.deepEqual(await codeOf(await post(body, without(signed(Date.now()), 'webhook-'))), [401, 'standard_signature_required']);
    assert.deepEqual(await codeOf(await post(body, without(signed(Date.now()), 'webhook-id'))), [401, 'missing_header']);
    assert.deepEqual(await codeOf(await post(body, signed(Date.now() - 6 * 60_000))), [401, 'timestamp_too_old']);
    assert.deepEqual(await codeOf(await post(body, signed(Date.now() + 6 * 60_000))), [401, 'timestamp_too_new']);
    assert.deepEqual(await codeOf(await post(body, { ...signed(Date.now()), 'webhook-timestamp': 'soon' })), [401, 'invalid_timestamp']);
  });

  it("the sandbox's confirmed invoices reach the docs' webhook receiver, which verifies them", async () => {
    const confirmed: string[] = [];
    for (const id of invoiceIds) {
      const invoice = (await (await fetch(`http://127.0.0.1:${ports.listener}/invoice/${id}`)).json()) as { status: string };
      if (invoice.status === 'confirmed') confirmed.push(id);
    }
    assert.ok(confirmed.length > 0, `no invoice of the README blocks is confirmed (${invoiceIds.join(', ') || 'none created'})`);
    for (const id of confirmed) {
      await receiver.waitFor(new RegExp(`^verified evt_\\S+ invoice\\.confirmed ${id}$`, 'm'), 30_000);
    }
  });
});
