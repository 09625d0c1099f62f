import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from './fixtures/service.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService({ DATABASE_URL: 'none' });
});
afterAll(() => service.stop());

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

it('documents the thread API in the OpenAPI document', async () => {
  const document = await (await fetch(`${service.url}/api/openapi.json`)).json();
  const operations = Object.entries(document.paths as Record<string, Record<string, { summary?: string }>>)
    .filter(([path]) => path.startsWith('/threads'))
    .flatMap(([path, item]) => Object.keys(item).filter((key) => HTTP_METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`));
  expect(operations.sort()).toEqual([
    'DELETE /threads/{threadId}',
    'GET /threads',
    'GET /threads/{threadId}',
    'GET /threads/{threadId}/messages',
    'PATCH /threads/{threadId}',
  ]);
  const thread = document.paths['/threads/{threadId}'].get.responses['200'].content['application/json'].schema;
  expect(Object.keys(thread.properties)).toEqual(['id', 'title', 'resourceId', 'agentId', 'createdAt', 'updatedAt', 'metadata']);
});
