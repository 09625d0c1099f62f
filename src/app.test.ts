import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { createApp } from './app.ts';

// Whether an object is still held is only known after a full collection.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** A weak reference to the Mastra instance of an app that was built, asked once, and closed. */
async function closedApp() {
  const { app, mastra, close } = await createApp(parseConfig({ DATABASE_URL: 'none', LOG_LEVEL: 'error' }));
  expect((await app.request('/health')).status).toBe(200);
  await close();
  return new WeakRef(mastra);
}

it('lets go of a closed app: tests and embedders can build many in one process', async () => {
  const closed = await closedApp();
  // Finalizers and V8's weak-reference bookkeeping run between turns of the event loop.
  for (let attempt = 0; attempt < 5 && closed.deref(); attempt++) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
  }
  expect(closed.deref()).toBeUndefined();
});
