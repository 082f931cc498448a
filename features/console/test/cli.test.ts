/** `runtimectl serve`'s own bad input: flags, and a port already taken (one line, a stable code). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../../test/support/cli.ts';
import { startConsole } from '../server.ts';
import { tempDir } from './helpers.ts';
import { isKernelError } from '../../../kernel/errors.ts';

test('serve: unknown flags, a bad port, host or --stale-after are usage errors', async () => {
  for (const [argv, message] of [
    [['serve', '--bogus'], /unknown option --bogus/],
    [['serve', '--port', '70000'], /--port 70000: a port number from 0 to 65535/],
    [['serve', '--port', 'http'], /--port http: a port number/],
    [['serve', '--host', 'a b'], /--host "a b": an address or host name/],
    [['serve', '--stale-after', '0'], /--stale-after 0: whole seconds above zero/],
  ] as const) {
    const r = await runCli([...argv], { cwd: tempDir() });
    assert.equal(r.status, 2, argv.join(' '));
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
});

test('a port that is taken is RTC_ERR_CONSOLE_LISTEN, naming the address', async () => {
  const first = await startConsole({ stateDir: tempDir(), port: 0 });
  try {
    const port = Number(new URL(first.url).port);
    await assert.rejects(startConsole({ stateDir: tempDir(), port }), (error: unknown) => isKernelError(error) && error.code === 'RTC_ERR_CONSOLE_LISTEN' && error.message.includes(`127.0.0.1:${port}`));
  } finally {
    await first.close();
  }
});
