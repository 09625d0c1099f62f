/**
 * The LibSQL store as patched (patches/@mastra+libsql+*.patch) ships twice, as ES modules (what the service loads)
 * and as CommonJS (what `require('@mastra/libsql')` loads): each patch is checked in both builds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esm from '@mastra/libsql';
import { afterEach, expect, it } from 'vitest';

const commonJs = createRequire(import.meta.url)('@mastra/libsql') as typeof esm;
const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })));

it.each([
  ['ES modules', esm],
  ['CommonJS', commonJs],
])('deletes messages in one batch beside other writes (%s)', async (_build, { LibSQLStore }) => {
  const folder = mkdtempSync(join(tmpdir(), 'libsql-store-'));
  folders.push(folder);
  const store = new LibSQLStore({ id: 'store', url: `file:${join(folder, 'store.db')}` });
  await store.init();
  const memory = (await store.getStore('memory'))!;
  const now = new Date();
  await memory.saveThread({ thread: { id: 't', resourceId: 'u', title: 'x', createdAt: now, updatedAt: now, metadata: {} } });
  const message = (id: string) => ({ id, threadId: 't', resourceId: 'u', role: 'user' as const, createdAt: new Date(), content: { format: 2 as const, parts: [{ type: 'text' as const, text: id }] } });
  await memory.saveMessages({ messages: [message('a'), message('b')] });

  await Promise.all([memory.deleteMessages(['a']), memory.deleteMessages(['b']), memory.saveMessages({ messages: [message('c')] })]);

  expect((await memory.listMessages({ threadId: 't', perPage: false })).messages.map((m) => m.id)).toEqual(['c']);
  await store.close();
});
