import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MastraServer } from '@mastra/server/server-adapter';
import { CLOSED_IN_EVERY_MODE, PUBLIC_ROUTES } from '../src/security/route-gate.ts';
import { GENERATE, STREAM, startApp, userSays, withApp, type AppHarness } from './fixtures/app-harness.ts';
import { openAPIContract } from './fixtures/openapi-contract.ts';
import { hs256, TEST_JWT_SECRET } from './fixtures/tokens.ts';

// Every response the suite's in-process tests get from our routes is checked against this
// document by the harness (tests/fixtures/app-harness.ts); this file checks the document itself.
let h: AppHarness;
/** What production serves (`h`), and what development serves for Studio. */
let document: any;
let developmentDocument: any;
beforeAll(async () => {
  h = await startApp();
  document = await (await h.get('/api/openapi.json')).json();
  developmentDocument = await withApp({ SERVER_MODE: 'development' }, async (dev) => (await dev.get('/api/openapi.json')).json());
});
afterAll(() => h.close());

/** Every `METHOD /path` a document describes, in Hono's `:param` form, wherever its paths are served from. */
function operations(served: any) {
  const base = (item: any) => (item.servers ?? served.servers ?? [{ url: '/' }])[0].url.replace(/\/$/, '');
  return Object.entries(served.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${base(item)}${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
}

describe('the routes described', () => {
  it('in production: exactly the routes production serves, but the documentation itself', () => {
    const documentation = ['GET /api/openapi.json', 'GET /docs', 'GET /docs/init.js', 'GET /docs/:asset'];
    const served = PUBLIC_ROUTES.map((route) => `${route.method} ${route.path}`).filter((route) => !documentation.includes(route));
    expect(operations(document).sort()).toEqual(served.sort());
  });

  it.each([
    { mode: 'production', builds: 0 },
    { mode: 'development', builds: 1 },
  ])("in $mode, builds Mastra's document of its routes $builds times, asked with HEAD then GET", async ({ mode, builds }) => {
    const env = { SERVER_MODE: mode };
    const build = vi.spyOn(MastraServer.prototype, 'buildOpenAPISpec');
    try {
      await withApp(env, async (app) => {
        const head = await app.request('/api/openapi.json', { method: 'HEAD' });
        expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'application/json', '']);
        expect((await app.get('/api/openapi.json')).status).toBe(200);
      });
      expect(build).toHaveBeenCalledTimes(builds);
    } finally {
      build.mockRestore();
    }
  });

  it("in development: Mastra's routes too (Studio uses them), but those closed in every mode", () => {
    const described = operations(developmentDocument);
    expect(described.length).toBeGreaterThan(300);
    expect(described).toEqual(expect.arrayContaining(['POST /api/agents/:agentId/generate', 'GET /api/memory/threads', ...operations(document)]));
    for (const route of CLOSED_IN_EVERY_MODE) expect(described).not.toContain(`${route.method} ${route.path}`);
  });

  it('in development with authentication on: not the routes the gate closes then (traces, logs, scores, A2A)', async () => {
    const token = await hs256({ sub: 'ada' });
    const served = await withApp({ SERVER_MODE: 'development', MASTRA_JWT_SECRET: TEST_JWT_SECRET }, async (dev) =>
      (await dev.app.request('/api/openapi.json', { headers: { authorization: `Bearer ${token}` } })).json(),
    );
    const described = operations(served);
    expect(described).toEqual(expect.arrayContaining(['GET /api/memory/threads']));
    expect(described.filter((operation) => /^\w+ \/api\/(observability|logs|scores|a2a)(\/|$)/.test(operation))).toEqual([]);
    expect(operations(developmentDocument).filter((operation) => operation.includes('/api/logs'))).not.toEqual([]);
  });
});

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const ERROR_BODY = { $ref: '#/components/schemas/ErrorBody' };
const json = (schema: unknown) => ({ 'application/json': { schema } });

describe('the SPEC agent routes', () => {
  it.each([
    ['generate', GENERATE, 'application/json', 'GenerateResponse'],
    ['stream', STREAM, 'text/event-stream', 'StreamEvent'],
  ])('%s: the SPEC request body, its 200, and every error status with the SPEC error body', (_name, path, mediaType, schema) => {
    const operation = document.paths[path].post;
    expect(document.paths[path].servers).toEqual([{ url: '/' }]);
    expect(operation.requestBody).toEqual({ required: true, content: json({ $ref: '#/components/schemas/AgentRequest' }) });
    expect(operation.responses['200'].content).toEqual({ [mediaType]: { schema: { $ref: `#/components/schemas/${schema}` } } });
    expect(Object.keys(operation.responses['200'].headers)).toEqual([
      'x-trace-id',
      'RateLimit-Policy',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'x-thread-id',
    ]);
    for (const status of ['400', '404', '413', '429', '500']) expect(operation.responses[status].content).toEqual(json(ERROR_BODY));
    // A failure has its trace id, and names the thread it had opened (its user message is stored).
    for (const status of ['400', '429', '500', '503', '504']) expect(Object.keys(operation.responses[status].headers), status).toEqual(expect.arrayContaining(['x-trace-id', 'x-thread-id']));
    expect(operation.responses['429'].headers).toHaveProperty('Retry-After');
  });

  it('describes every stream event type of SPEC, each with runId', () => {
    const union = document.components.schemas.StreamEvent.oneOf as Array<{ properties: { type: { const: string } }; required: string[] }>;
    expect(union.map((event) => event.properties.type.const)).toEqual([
      'start',
      'step-start',
      'text',
      'tool-call-input-streaming-start',
      'tool-call-delta',
      'tool-call-input-streaming-end',
      'tool-call',
      'tool-result',
      'step-finish',
      'run-finish',
      'error',
    ]);
    for (const event of union) expect(event.required).toEqual(expect.arrayContaining(['type', 'runId']));
  });

  it('documents the generate response with every SPEC field, and the error body with SPEC codes', () => {
    const response = document.components.schemas.GenerateResponse;
    expect(Object.keys(response.properties)).toEqual([
      'text', 'usage', 'steps', 'finishReason', 'warnings', 'providerMetadata', 'request', 'reasoning', 'toolCalls',
      'toolResults', 'sources', 'files', 'response', 'totalUsage', 'tripwire', 'tripwireReason', 'traceId',
    ]);
    expect(response.required).toEqual(expect.arrayContaining(['text', 'usage', 'finishReason', 'traceId']));
    expect(document.components.schemas.ErrorBody.properties.code.enum).toEqual(expect.arrayContaining([
      'TOOL_EXECUTION_FAILED', 'MEMORY_NOT_INITIALIZED', 'INVALID_REQUEST', 'RATE_LIMITED', 'MODEL_ERROR', 'AUDIO_PROCESSING_ERROR',
    ]));
    // A failed tool is a tool-result with isError on both routes, never an HTTP error.
    for (const route of ['generate', 'stream']) {
      expect(document.paths[`/api/agents/companionAgent/${route}`].post.responses['500'].description).not.toContain('TOOL_EXECUTION_FAILED');
    }
  });

  it('documents the request body the routes validate: what it accepts passes, what they reject fails', async () => {
    const ajv = new Ajv2020({ strict: false });
    const accepts = ajv.compile({ ...document.components.schemas.AgentRequest, $defs: undefined });
    const bodies = [
      userSays('Hi'),
      { ...userSays('Hi'), threadId: 't', resourceId: 'u', runtimeContext: { metadata: { personality: 'guru', userId: 'u', tags: ['a'] } } },
      { messages: [{ role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }], tracingOptions: { metadata: { personality: 'friend' } } },
      { ...userSays('Hi'), model: 'gpt-5' },
      { ...userSays('Hi'), runtimeContext: { metadata: { personality: 'pirate' } } },
      { messages: [] },
      { messages: [{ role: 'robot', content: 'Hi' }] },
      // What the routes refine, the document says too: some text, no personality beside metadata, clean tags.
      { messages: [{ role: 'user', content: '  ' }] },
      { messages: [{ role: 'user', content: [{ type: 'input_text', text: '' }] }] },
      { messages: [{ role: 'user', content: [{ type: 'input_text', text: '' }, { type: 'input_text', text: 'Hi' }] }] },
      { ...userSays('Hi'), runtimeContext: { personality: 'guru' } },
      { ...userSays('Hi'), tracingOptions: { personality: 'guru' } },
      { ...userSays('Hi'), runtimeContext: { metadata: { tags: ['a\u0007b'] } } },
      { ...userSays('Hi'), runtimeContext: { metadata: { tags: ['   '] } } },
      { ...userSays('Hi'), runtimeContext: { metadata: { tags: [' travel '] } } },
    ];
    h.model.script(...bodies.map(() => ({ text: 'ok' })));
    for (const body of bodies) {
      const status = (await h.post(GENERATE, body)).status;
      expect({ body, documentedAsValid: accepts(body) }).toEqual({ body, documentedAsValid: status === 200 });
    }
  });

  it("tells that Mastra's native agent routes need the native-client header (development)", () => {
    for (const path of ['/agents/{agentId}/generate', '/agents/{agentId}/stream']) {
      expect(developmentDocument.paths[path].post.description).toContain('x-mastra-client-type');
    }
  });
});

describe('the rest of our routes', () => {
  it("documents the thread PATCH body the route validates: what it accepts passes, what it rejects fails", async () => {
    const ajv = new Ajv2020({ strict: false });
    const accepts = ajv.compile(document.paths['/threads/{threadId}'].patch.requestBody.content['application/json'].schema);
    h.model.script({ text: 'ok' });
    await h.post(GENERATE, { ...userSays('Hi'), threadId: 'documented', resourceId: 'u' });
    const bodies = [{ title: 'New' }, { tags: ['a', ' b '] }, {}, { title: ' ' }, { title: 'a\nb' }, { tags: ['a\tb'] }, { colour: 'red' }];
    for (const body of bodies) {
      const status = (await h.send('PATCH', '/threads/documented?resourceId=u', body)).status;
      expect({ body, documentedAsValid: accepts(body) }).toEqual({ body, documentedAsValid: status === 200 });
    }
  });

  it('documents the thread API, with the SPEC error body for its failures', () => {
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
    const read = document.paths['/threads/{threadId}'].get;
    expect(Object.keys(read.responses['200'].content['application/json'].schema.properties)).toEqual([
      'id', 'title', 'resourceId', 'agentId', 'createdAt', 'updatedAt', 'metadata',
    ]);
    expect(read.responses['4XX'].content).toEqual(json(ERROR_BODY));
    expect(read.responses['4XX'].headers).toHaveProperty('Retry-After');
    expect(read.responses['5XX'].content).toEqual(json(ERROR_BODY));
  });

  it('documents the working-memory API, with its answers and the SPEC error body for its failures', () => {
    const item = document.paths['/working-memory'];
    expect(Object.keys(item).filter((key) => HTTP_METHODS.includes(key)).sort()).toEqual(['delete', 'get']);
    expect([item.get.operationId, item.delete.operationId]).toEqual(['getWorkingMemory', 'deleteWorkingMemory']);
    expect(Object.keys(item.get.responses['200'].content['application/json'].schema.properties)).toEqual(['resourceId', 'workingMemory', 'updatedAt']);
    expect(Object.keys(item.delete.responses['200'].content['application/json'].schema.properties)).toEqual(['resourceId', 'deleted']);
    for (const operation of [item.get, item.delete]) expect(operation.responses['4XX'].content).toEqual(json(ERROR_BODY));
  });

  it('documents /health as it answers', async () => {
    const response = await h.get('/health');
    expect(response.status).toBe(200);
    expect(document.paths['/health'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      properties: { success: { const: true } },
      required: ['success'],
    });
  });

  it.each([
    ['production', () => document],
    ['development', () => developmentDocument],
  ])('is one self-contained document (%s): every $ref resolves and every component schema compiles', (_mode, served) => {
    const document = served();
    const refs = new Set<string>();
    JSON.stringify(document, (key, value) => (key === '$ref' && refs.add(value), value));
    for (const ref of refs) {
      const target = ref.replace(/^#\//, '').split('/').reduce((node: any, segment: string) => node?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')], document);
      expect(target, ref).toBeDefined();
    }
    expect(JSON.stringify(document)).not.toContain('"$schema"');
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...document, $id: 'doc' });
    for (const id of Object.keys(document.components.schemas)) expect(() => ajv.getSchema(`doc#/components/schemas/${id}`), id).not.toThrow();
  });
});

describe('the contract check', () => {
  it('fails a response the document does not describe', () => {
    const contract = openAPIContract(document);
    expect(contract.violations('POST', GENERATE, 200, 'application/json', { text: 'Hi' })).toEqual(
      expect.arrayContaining([expect.stringContaining("must have required property 'traceId'")]),
    );
    expect(contract.violations('POST', STREAM, 200, 'text/event-stream', { type: 'text-delta', runId: 'r' })).not.toEqual([]);
    expect(contract.violations('POST', GENERATE, 400, 'application/json', { error: 'x', code: 'TOOL_ERROR', details: {} })).not.toEqual([]);
    expect(contract.violations('POST', GENERATE, 418, 'application/json', {})).toEqual([`POST ${GENERATE} does not document status 418`]);
    expect(contract.violations('GET', '/threads/t-1', 404, 'application/json', { error: 'x', code: 'NOT_FOUND', details: {} })).toEqual([]);
  });
});

describe('the docs page', () => {
  it('renders the served document with assets from this service only (no CDN)', async () => {
    const page = await h.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.sort()).toEqual(['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    for (const asset of assets) {
      const response = await h.get(asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect((await response.text()).length, asset).toBeGreaterThan(0);
    }
    expect(await (await h.get('/docs/init.js')).text()).toContain("url: '/api/openapi.json'");
  });

  it('answers any other asset name with a 404, an inherited member name too', async () => {
    for (const name of ['nope.js', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const response = await h.get(`/docs/${name}`);
      expect(response.status, name).toBe(404);
      expect(await response.json(), name).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});

describe('what a generated client needs', () => {
  const described = () =>
    Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'servers')
        .map(([method, operation]: [string, any]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
    );

  it('names every operation, and leaves a parameter with a default optional', () => {
    for (const { route, operation } of described()) {
      expect(operation.operationId, route).toMatch(/^[a-z][A-Za-z]+$/);
      for (const parameter of operation.parameters ?? []) if (parameter.schema?.default !== undefined) expect(parameter.required, `${route} ${parameter.name}`).toBe(false);
    }
  });

  it("lists the agent routes' 415, 504 and the wait of a 429, and no 401 or 403 without authentication", () => {
    for (const path of [GENERATE, STREAM]) {
      const { responses } = document.paths[path].post;
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['415', '429', '504']));
      expect(Object.keys(responses)).not.toEqual(expect.arrayContaining(['401']));
      expect(Object.keys(responses)).not.toEqual(expect.arrayContaining(['403']));
      expect(responses['429'].headers).toHaveProperty('Retry-After');
    }
  });

  // Only the agent routes declared the trace id, and no route the rate limit's headers, though every answer sends them.
  it("declares the trace id on every answer of the service's routes, and the rate limit's headers on those it counts", () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      if (path === '/health') continue;
      for (const [method, operation] of Object.entries<any>(item)) {
        if (!operation?.responses) continue;
        const counted = /^(\/api\/agents\/|\/stt$|\/threads|\/working-memory)/.test(path);
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const declared = Object.keys(response.headers ?? {});
          expect(declared, `${method} ${path} ${status}`).toContain('x-trace-id');
          expect(declared.includes('RateLimit-Remaining'), `${method} ${path} ${status}`).toBe(counted);
        }
      }
    }
  });

  // /stream listed the model's rate limit, failure and silence as statuses; they arrive as its final error event.
  it("says which of /stream's failures are statuses (before its first event) and which are its final error event", () => {
    const stream = document.paths[STREAM].post.responses;
    expect(stream['429'].description).toContain("the language model's own limit is the stream's error event");
    expect(stream['500'].description).toContain('Once the stream has started, a failure of the model or the store is its final error event');
    expect(stream['504'].description).not.toContain('MODEL_IDLE_TIMEOUT_MS');
    expect(document.paths[GENERATE].post.responses['429'].description).toContain("or the language model's own limit");
  });

  it("makes the thread and working-memory API's resourceId required without authentication (it names the owner)", () => {
    const resourceIds = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/threads') || path === '/working-memory')
      .flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, operation]: [string, any]) => [`${method} ${path}`, operation]))
      .map(([route, operation]) => [route, operation.parameters?.find((parameter: { name: string }) => parameter.name === 'resourceId')?.required]);
    expect(resourceIds.length).toBeGreaterThanOrEqual(7);
    for (const [route, required] of resourceIds) expect(required, route).toBe(true);
  });

  it('names the bearer token when authentication is on, and the probes need none', async () => {
    const authenticated = await withApp({ MASTRA_JWT_SECRET: TEST_JWT_SECRET }, async (app) =>
      (await app.request('/api/openapi.json', { headers: { authorization: `Bearer ${await hs256({ sub: 'ada' })}` } })).json(),
    );
    expect(authenticated.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(authenticated.security).toEqual([{ bearer: [] }]);
    expect([authenticated.paths['/health'].get.security, authenticated.paths['/ready'].get.security]).toEqual([[], []]);
    expect(Object.keys(authenticated.paths[GENERATE].post.responses)).toEqual(expect.arrayContaining(['401', '403']));
    const listThreads = authenticated.paths['/threads'].get.parameters.find((parameter: { name: string }) => parameter.name === 'resourceId');
    expect(listThreads.required).toBe(false);
    expect(document).not.toHaveProperty('security');
  });
});
