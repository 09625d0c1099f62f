import { expect, it } from 'vitest';
import { startService } from './fixtures/service.ts';

// Mastra installs its signal handlers once the server has started its workers: with tracing on, a while after the
// server says it is ready (when this test sends its signal). A signal before that once left the process running.
it('a SIGTERM right after start-up stops the process', async () => {
  const service = await startService({ DATABASE_URL: 'none', TRACING: 'on' });
  const stopped = service.stop('SIGTERM').then(() => 'stopped' as const);
  const outcome = await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000, 'still running'))]);
  if (outcome !== 'stopped') await service.stop('SIGKILL');
  expect(outcome).toBe('stopped');
}, 30_000);
