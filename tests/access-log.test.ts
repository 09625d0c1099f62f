import { createHonoServer } from '@mastra/deployer/server';
import type { Mastra } from '@mastra/core/mastra';
import { expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { createCompanion, SERVER_OPTIONS } from '../src/app.ts';
import { COMPANION_AGENT_ID } from '../src/contract/paths.ts';
import { GENERATE, userSays, withApp } from './fixtures/app-harness.ts';
import { readySttEngine } from './fixtures/ready-stt-engine.ts';
import { tempDatabaseUrl } from './fixtures/service.ts';

/** The access lines (`"msg":"request"`) the service writes, whatever the log level. */
function accessLines(mastra: Mastra) {
  const lines: Record<string, unknown>[] = [];
  const logger = mastra.getLogger();
  const info = logger.info.bind(logger);
  logger.info = (message, ...args) => {
    if (message === 'request') lines.push(args[0] as Record<string, unknown>);
    info(message, ...args);
  };
  return lines;
}

it("writes the access line of a request that Mastra's own handler timeout answers", async () => {
  const companion = await createCompanion(parseConfig({ DATABASE_URL: tempDatabaseUrl(), LOG_LEVEL: 'error' }), { stt: { engine: readySttEngine() } });
  try {
    // Mastra's timeout (see app.ts), shortened so the test sees it answer.
    companion.mastra.getServer()!.timeout = 200;
    const app = await createHonoServer(companion.mastra, SERVER_OPTIONS);
    const memory = await (await companion.mastra.getAgent(COMPANION_AGENT_ID).getMemory())!.storage.getStore('memory');
    memory!.listThreads = () => new Promise(() => {});
    const lines = accessLines(companion.mastra);

    const response = await app.request('http://companion.test/threads?resourceId=u1');
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: 'The request took longer than the server allows; it was stopped.', code: 'MEMORY_NOT_INITIALIZED', details: {} });
    expect(lines).toEqual([
      expect.objectContaining({ method: 'GET', path: '/threads', status: response.status, resourceId: 'u1', traceId: expect.any(String) }),
    ]);
  } finally {
    await companion.close().catch(() => {});
  }
});

it("names the requested thread and owner on the access line of an agent turn that fails before its thread is opened", async () => {
  await withApp({}, async (h) => {
    h.model.script({ text: 'Hello.' });
    expect((await h.post(GENERATE, { ...userSays('Hi'), threadId: 'th9', resourceId: 'u1' })).status).toBe(200);
    const lines = accessLines(h.mastra);
    const stranger = await h.post(GENERATE, { ...userSays('Hi'), threadId: 'th9', resourceId: 'u8' });
    expect(stranger.status).toBe(404);
    expect(lines).toEqual([expect.objectContaining({ status: 404, threadId: 'th9', resourceId: 'u8' })]);
  });
  await withApp({ DATABASE_URL: 'none' }, async (h) => {
    const lines = accessLines(h.mastra);
    const withoutMemory = await h.post(GENERATE, { ...userSays('Hi'), resourceId: 'u1' });
    expect(withoutMemory.status).toBe(500);
    expect(lines).toEqual([expect.objectContaining({ status: 500, resourceId: 'u1' })]);
  });
});
