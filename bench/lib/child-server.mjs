// Starts a server script in a child process (its own event loop, apart from the load generator) and
// waits for it to report its port over IPC.
import { fork } from 'node:child_process';

export async function startChildServer(scriptPath, timeoutMs = 10_000) {
  const child = fork(scriptPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${scriptPath} did not report a port within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('message', (msg) => {
      clearTimeout(timer);
      ok(Number(msg.port));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${scriptPath} exited with ${code} before listening`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop };
}
