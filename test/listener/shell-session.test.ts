import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShellSession } from '../helpers/shell-session.ts';

test('a shell session runs commands in turn, as one terminal: variables carry over, each has its own output and status', async () => {
  const shell = new ShellSession(process.cwd(), { PATH: process.env.PATH ?? '' });
  try {
    assert.deepEqual(await shell.run(`ID=$(printf '{"invoice_id":"inv_1"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).invoice_id')`), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(await shell.run('echo "id is $ID"; echo oops >&2'), { code: 0, stdout: 'id is inv_1\n', stderr: 'oops\n' });
    assert.deepEqual(await shell.run('printf no-newline'), { code: 0, stdout: 'no-newline', stderr: '' });
    // A command reading stdin gets nothing: it cannot swallow the commands that follow.
    assert.deepEqual(await shell.run('cat; echo "after cat: $ID"  # a trailing comment'), { code: 0, stdout: 'after cat: inv_1\n', stderr: '' });
    assert.equal((await shell.run('false')).code, 1);
    assert.equal((await shell.run('(exit 7)')).code, 7);
    const slow = await shell.run('sleep 30', 500);
    assert.equal(slow.code, null);
    assert.match(slow.stderr, /killed after 500 ms/);
    assert.equal((await shell.run('echo too late')).code, null, 'a killed session runs nothing more');
  } finally {
    await shell.close();
  }
});
