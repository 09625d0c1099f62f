import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { freePort, spawnService, startService } from './fixtures/service.ts';

// Mastra installs its signal handlers once the server has started its workers: with tracing on, a while after the
// server says it is ready (when this test sends its signal). A signal before that once left the process running.
it('a SIGTERM right after start-up stops the process', async () => {
  const service = await startService({ DATABASE_URL: 'none', TRACING: 'on' });
  const stopped = service.stop('SIGTERM').then(() => 'stopped' as const);
  const outcome = await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000, 'still running'))]);
  if (outcome !== 'stopped') await service.stop('SIGKILL');
  expect(outcome).toBe('stopped');
}, 30_000);

/** Whether the process is well into loading the service's modules: over 100 MB (Node alone holds about 45, the ready service over 250). */
function loadsTheService(pid: number): boolean {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) > 100 * 1024;
}

// As a container's PID 1 (`node` run without an init) the kernel ignores a signal the process has no handler for:
// one sent while the service loaded its modules was never acted on, and the container was killed at the end of its
// grace period. The service handles the stop signals itself from its first line (not the kernel's default action,
// which is what PID 1 is spared), once its modules are loaded: by exiting, or by Mastra's shutdown if it is in place.
it('a SIGTERM while the service still loads is handled by the service, which exits', async () => {
  const { child, output } = spawnService({ HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn' });
  let ready = false;
  child.on('message', (message: { type?: string }) => (ready ||= message?.type === 'server-ready'));
  const exited = once(child, 'exit');
  await vi.waitFor(() => expect(loadsTheService(child.pid!)).toBe(true), { timeout: 20_000, interval: 2 });
  const readyWhenSignalled = ready;
  child.kill('SIGTERM');
  const [code, signal] = await exited;
  expect({ signal, readyWhenSignalled }, output()).toEqual({ signal: null, readyWhenSignalled: false });
  expect([0, 143], output()).toContain(code);
}, 30_000);

// npm runs a script through `sh -c`, which does not pass a signal on: a SIGTERM to `npm start` (a process manager's,
// a container's `CMD ["npm", "start"]`) stopped npm and left the service running, still listening.
it('a SIGTERM to `npm start` reaches the service, which stops', async () => {
  const port = await freePort();
  const cwd = join(import.meta.dirname, '..');
  const env = { PATH: process.env.PATH ?? '', MASTRA_SKIP_DOTENV: '1', HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'none', LOG_LEVEL: 'warn' };
  // A process group of its own, so that what it leaves running is killed after the test.
  const npm = spawn('npm', ['start', '--silent'], { cwd, env, stdio: 'ignore', detached: true });
  try {
    const exited = once(npm, 'exit');
    await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200), { timeout: 30_000, interval: 100 });
    npm.kill('SIGTERM');
    await exited;
    const listening = () => fetch(`http://127.0.0.1:${port}/health`).then(() => 'listening', () => 'closed');
    await vi.waitFor(async () => expect(await listening()).toBe('closed'), { timeout: 10_000, interval: 100 });
  } finally {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // the group has ended
    }
  }
}, 60_000);
