import { Mastra } from '@mastra/core/mastra';
import { registerApiRoute } from '@mastra/core/server';
import { createHonoServer } from '@mastra/deployer/server';
import { PinoLogger } from '@mastra/loggers';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { streamCustomRouteBody } from './custom-route-body.ts';

// Memory held by the server is only measurable after a full collection.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Array buffer bytes in use once garbage is collected (V8 frees their memory on another thread, a moment later). */
async function arrayBuffersInUse() {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 20));
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
}

const MB = 1024 * 1024;
const BODY_MB = 32;

/** Bytes of array buffers still held when a custom route has read a 32 MB body to its end. */
async function heldAfterReading(middleware: Array<{ path: string; handler: typeof streamCustomRouteBody }>) {
  let held = Number.NaN;
  const route = registerApiRoute('/upload', {
    method: 'POST',
    handler: async (c) => {
      const before = await arrayBuffersInUse();
      let read = 0;
      for await (const chunk of c.req.raw.body!) read += chunk.length;
      held = (await arrayBuffersInUse()) - before;
      return c.json({ read });
    },
  });
  const mastra = new Mastra({ logger: new PinoLogger({ level: 'error' }), server: { apiRoutes: [route], middleware } });
  const app = await createHonoServer(mastra, { tools: {} });
  let sent = 0;
  // Fresh 1 MB chunks, made as they are read: anything kept of them is kept by the server.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent++ === BODY_MB) return controller.close();
        controller.enqueue(new Uint8Array(MB).fill(sent));
      },
    },
    { highWaterMark: 0 },
  );

  const response = await app.request('/upload', { method: 'POST', body, duplex: 'half' } as RequestInit);

  expect(await response.json()).toEqual({ read: BODY_MB * MB });
  return held;
}

it('lets a custom route read a large body without the server keeping a copy of it', async () => {
  expect(await heldAfterReading([{ path: '/upload', handler: streamCustomRouteBody }])).toBeLessThan(4 * MB);
});

it("is needed: without it, Mastra's custom-route bridge keeps the whole body while the route reads it", async () => {
  expect(await heldAfterReading([])).toBeGreaterThan((BODY_MB - 4) * MB);
});
