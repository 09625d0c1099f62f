import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GENERATE, STREAM, userSays } from './fixtures/companion-harness.ts';
import { startApp, type AppHarness } from './fixtures/app-harness.ts';
import { seedThread } from './fixtures/seed-thread.ts';
import { storeSnapshot } from './fixtures/store-snapshot.ts';

/**
 * Property-based fuzzing of both agent routes (SPEC and native wire format)
 * and the thread API. Each case starts from a well-formed request and carries
 * at least one defect (a bad id, a forbidden or unknown field, broken JSON, a
 * wrong content type, an unsafe query key, another user's thread…) plus random
 * noise (query parameters, headers). Every answer must be a JSON 4xx in SPEC's
 * error shape, logged as the client's mistake it is (no error line), the model
 * must never be called and the store must not change; afterwards a plain
 * request still works.
 */
const SAFE_ID = /^[A-Za-z0-9._:@|-]{1,128}$/;
const VICTIM = { threadId: 'victim-thread', resourceId: 'victim' };
const PERSONALITIES = ['guru', 'wanderer', 'friend', 'philosopher'];
const FORBIDDEN_FIELDS = ['instructions', 'system', 'model', 'modelSettings', 'providerOptions', 'tools', 'toolsets', 'clientTools', 'toolChoice', 'activeTools', 'structuredOutput', 'output', 'stopWhen', 'scorers', 'context'];

interface Draft {
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: Record<string, unknown> | unknown[];
  /** Sent as is instead of `body`. */
  rawBody?: string;
}

type Defect = (draft: Draft) => Draft;

let service: AppHarness;
beforeAll(async () => {
  service = await startApp();
  await seedThread(await service.store(), VICTIM, 4);
});
afterAll(() => service.close());

// ---- building blocks ----

const safeId = fc.stringMatching(SAFE_ID);
const unsafeId = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.constantFrom('t-中', 't\u0000x', 't\r\nx', 'victim\u0000evil', 'a b', '', '../x', 'x'.repeat(129), '<script>'),
  )
  // Well-formed text only: a lone surrogate cannot even be put into a URL.
  .filter((id) => !SAFE_ID.test(id) && !/\p{Surrogate}/u.test(id));
const text = fc.string({ minLength: 1, maxLength: 40 });
const json = fc.jsonValue({ maxDepth: 3 });
const notJson = fc.string({ maxLength: 60 }).filter((candidate) => {
  try {
    JSON.parse(candidate);
    return false;
  } catch {
    return true;
  }
});
const wrongContentType = fc.constantFrom('text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'text/json', 'application/xml');
const unsafeQuery = fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', '%5F%5Fproto%5F%5F'), fc.constantFrom('', '[polluted]', '[a][b]')).map(([name, tail]) => `${name}${tail}`);
/** Noise the server must ignore or refuse cleanly: extra query parameters and headers. */
const noiseQuery = fc.array(fc.tuple(fc.stringMatching(/^n_[a-z]{1,6}$/), fc.string({ maxLength: 20 })), { maxLength: 3 });
const noiseHeaders = fc.dictionary(fc.stringMatching(/^x-fuzz-[a-z]{1,6}$/), fc.stringMatching(/^[\x20-\x7e]{0,30}$/), { maxKeys: 3 });

const set = (key: string, value: unknown): Defect => (draft) => ({ ...draft, body: { ...(draft.body as object), [key]: value } });
const withQuery = (name: string, value = '1'): Defect => (draft) => ({ ...draft, query: [...draft.query, [name, value]] });
const common: fc.Arbitrary<Defect>[] = [
  wrongContentType.map((contentType): Defect => (draft) => ({ ...draft, headers: { ...draft.headers, 'content-type': contentType } })),
  notJson.map((raw): Defect => (draft) => ({ ...draft, rawBody: raw })),
  unsafeQuery.map((name) => withQuery(name)),
];

// ---- agent routes ----

const specBase = fc.record(
  { messages: text.map((content) => [{ role: 'user', content }]), threadId: safeId, resourceId: safeId, runtimeContext: fc.constantFrom(...PERSONALITIES).map((personality) => ({ metadata: { personality } })) },
  { requiredKeys: ['messages'] },
);
const specDefects: fc.Arbitrary<Defect>[] = [
  ...common,
  fc.tuple(fc.constantFrom('threadId', 'resourceId'), unsafeId).map(([field, id]) => set(field, id)),
  fc.tuple(fc.constantFrom(...FORBIDDEN_FIELDS, 'memory', 'requestContext', 'runId'), json).map(([field, value]) => set(field, value)),
  fc.oneof(
    fc.constant([]),
    json.filter((value) => !Array.isArray(value)),
    text.map((content) => [{ role: 'user', content }, { role: 'assistant', content }]),
    fc.tuple(fc.string().filter((role) => !['user', 'assistant', 'system'].includes(role)), text).map(([role, content]) => [{ role, content }]),
    fc.constantFrom(null, 0, '', {}).map((content) => [{ role: 'user', content }]),
  ).map((messages) => set('messages', messages)),
  fc.string().filter((p) => !PERSONALITIES.includes(p)).map((personality) => set('runtimeContext', { metadata: { personality } })),
  safeId.map((threadId): Defect => (draft) => {
    const { resourceId: _dropped, ...body } = draft.body as Record<string, unknown>;
    return { ...draft, body: { ...body, threadId } };
  }),
];

const nativeBase = fc.record(
  {
    messages: fc.oneof(text, text.map((content) => [{ role: 'user', content }])),
    memory: fc.record({ thread: safeId, resource: safeId }),
    requestContext: fc.constantFrom(...PERSONALITIES).map((personality) => ({ personality })),
  },
  { requiredKeys: ['messages'] },
);
const nativeDefects: fc.Arbitrary<Defect>[] = [
  ...common,
  fc.tuple(fc.constantFrom(...FORBIDDEN_FIELDS, 'threadId', 'resourceId', 'savePerStep', 'untilIdle'), json).map(([field, value]) => set(field, value)),
  fc.tuple(fc.string({ maxLength: 12 }).filter((key) => !['messages', 'memory', 'requestContext', 'runId', 'maxSteps'].includes(key)), json).map(([field, value]) => set(field, value)),
  fc.tuple(unsafeId, safeId).map(([thread, resource]) => set('memory', { thread, resource })),
  safeId.map((thread) => set('memory', { thread })),
  safeId.map((resource) => set('memory', { thread: VICTIM.threadId, resource: `${resource}-not-victim` })),
  fc.string({ maxLength: 12 }).filter((key) => key !== 'personality').map((key) => set('requestContext', { [key]: true })),
  fc.string({ maxLength: 12 }).filter((key) => key !== 'personality').map((key) => withQuery('requestContext', JSON.stringify({ [key]: 1 }))),
  fc.oneof(fc.integer({ min: 11 }), fc.integer({ max: 0 }), fc.double({ min: 1.1, max: 9.9 })).map((steps) => set('maxSteps', steps)),
  fc.oneof(fc.constant([]), text.map((content) => [{ role: 'user', content }, { role: 'assistant', content }]), text.map((content) => [{ role: 'tool', content }])).map((messages) =>
    set('messages', messages),
  ),
];

function agentCase(path: string, native: boolean) {
  return fc.record({
    base: native ? nativeBase : specBase,
    defects: fc.array(fc.oneof(...(native ? nativeDefects : specDefects)), { minLength: 1, maxLength: 3 }),
    query: noiseQuery,
    headers: noiseHeaders,
    client: fc.constantFrom('studio', 'client-js', 'anything'),
  }).map(({ base, defects, query, headers, client }) =>
    defects.reduce((draft, defect) => defect(draft), {
      method: 'POST',
      path,
      query,
      headers: { 'content-type': 'application/json', ...headers, ...(native ? { 'x-mastra-client-type': client } : {}) },
      body: base,
    } as Draft),
  );
}

// ---- thread API ----

interface ThreadRoute {
  method: string;
  path: string;
  /** Names a thread in its path. */
  thread: boolean;
  /** Takes page/perPage. */
  paged: boolean;
}

const threadRoutes = fc.constantFrom<ThreadRoute>(
  { method: 'GET', path: '/threads', thread: false, paged: true },
  { method: 'GET', path: '/threads/:threadId', thread: true, paged: false },
  { method: 'PATCH', path: '/threads/:threadId', thread: true, paged: false },
  { method: 'DELETE', path: '/threads/:threadId', thread: true, paged: false },
  { method: 'GET', path: '/threads/:threadId/messages', thread: true, paged: true },
);
const ownerIs = (resourceId: string | undefined): Defect => (draft) => ({
  ...draft,
  query: [...draft.query.filter(([key]) => key !== 'resourceId'), ...(resourceId === undefined ? [] : [['resourceId', resourceId] as [string, string]])],
});
/** Defects that hold for the route: a request without a body ignores a wrong content type, a route without paging ignores `perPage`. */
const threadDefects = (route: ThreadRoute): fc.Arbitrary<Defect>[] => [
  unsafeQuery.map((name) => withQuery(name)),
  unsafeId.map(ownerIs),
  fc.constant(ownerIs(undefined)),
  fc.constantFrom('PUT', 'POST').map((method): Defect => (draft) => ({ ...draft, method })),
  ...(route.paged
    ? [
        fc.oneof(fc.integer({ max: -1 }).map(String), fc.integer({ min: 101 }).map(String), fc.constantFrom('x', '1.5', '')).map((value) => withQuery('perPage', value)),
        fc.oneof(fc.integer({ max: -1 }).map(String), fc.constantFrom('x', '0.5')).map((value) => withQuery('page', value)),
      ]
    : []),
  ...(route.thread
    ? [
        unsafeId.filter((id) => !id.includes('/') && id !== '.' && id !== '..' && id !== '').map((id): Defect => (draft) => ({ ...draft, path: draft.path.replace(VICTIM.threadId, encodeURIComponent(id)) })),
        // Another user's thread, by its id, under the caller's own (valid) resource id.
        safeId.map((resource) => ownerIs(`${resource}-not-victim`)),
      ]
    : []),
  ...(route.method === 'PATCH' ? threadPatchDefects : []),
];
const threadPatchBody = fc.oneof(
  fc.record({ title: text }),
  fc.record({ tags: fc.array(text, { maxLength: 3 }) }),
);
const threadPatchDefects: fc.Arbitrary<Defect>[] = [
  // Mastra's schema routes read any content type naming application/json (e.g. `application/jsonp`) as JSON.
  wrongContentType.filter((type) => !type.includes('application/json')).map((contentType): Defect => (draft) => ({ ...draft, headers: { ...draft.headers, 'content-type': contentType } })),
  notJson.map((raw): Defect => (draft) => ({ ...draft, rawBody: raw })),
  fc.constant<Defect>((draft) => ({ ...draft, body: {} })),
  fc.tuple(fc.string({ maxLength: 10 }).filter((k) => !['title', 'tags'].includes(k)), json).map(([field, value]) => set(field, value)),
  // A title is trimmed, then must be 1–200 characters: padding alone never makes a title too long.
  fc.oneof(fc.constantFrom('', ' \t\n'), fc.string({ minLength: 201, maxLength: 220 }).filter((title) => title.trim().length > 200), json.filter((v) => typeof v !== 'string')).map((title) => set('title', title)),
  fc.oneof(json.filter((v) => !Array.isArray(v)), fc.array(fc.constant(''), { minLength: 1, maxLength: 2 }), fc.array(text, { minLength: 21, maxLength: 22 })).map((tags) => set('tags', tags)),
];

const threadCase = threadRoutes.chain((route) =>
  fc
    .record({
      defects: fc.array(fc.oneof(...threadDefects(route)), { minLength: 1, maxLength: 3 }),
      body: threadPatchBody,
      query: noiseQuery,
      headers: noiseHeaders,
    })
    .map(({ defects, body, query, headers }) =>
      defects.reduce((draft, defect) => defect(draft), {
        method: route.method,
        path: route.path.replace(':threadId', VICTIM.threadId),
        query: [['resourceId', VICTIM.resourceId], ...query],
        headers: { 'content-type': 'application/json', ...headers },
        body: route.method === 'PATCH' ? body : undefined,
      } as Draft),
    ),
);

// ---- the property ----

function send(draft: Draft) {
  const search = draft.query.map(([key, value]) => `${key.startsWith('%') ? key : encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  const body = draft.method === 'GET' ? undefined : (draft.rawBody ?? (draft.body === undefined ? undefined : JSON.stringify(draft.body)));
  return service.app.request(`${draft.path}${search ? `?${search}` : ''}`, { method: draft.method, headers: draft.headers, body });
}

/** How often each status was answered: the defects must reach every kind of refusal, not just one. */
const statuses = new Map<number, number>();

async function answersWithJson4xx(draft: Draft) {
  const errorsLogged = service.loggedErrors().length;
  const response = await send(draft);
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const text = await response.text();
  const shown = `${draft.method} ${draft.path} → ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, shown).toBeGreaterThanOrEqual(400);
  expect(response.status, shown).toBeLessThan(500);
  expect(response.headers.get('content-type'), shown).toMatch(/^application\/json/);
  expect(JSON.parse(text), shown).toEqual({ error: expect.any(String), code: expect.any(String), details: expect.any(Object) });
  expect(service.loggedErrors().slice(errorsLogged), shown).toEqual([]);
  expect(service.model.requests, shown).toHaveLength(0);
}

it('answers thousands of defective agent and thread requests with a JSON 4xx, calls no model and stores nothing', async () => {
  const before = await storeSnapshot(await service.store());
  const runs = { numRuns: 700 };
  await fc.assert(fc.asyncProperty(agentCase(GENERATE, false), answersWithJson4xx), runs);
  await fc.assert(fc.asyncProperty(agentCase(STREAM, false), answersWithJson4xx), runs);
  await fc.assert(fc.asyncProperty(agentCase(GENERATE, true), answersWithJson4xx), runs);
  await fc.assert(fc.asyncProperty(agentCase(STREAM, true), answersWithJson4xx), runs);
  await fc.assert(fc.asyncProperty(threadCase, answersWithJson4xx), { numRuns: 1200 });
  expect(await storeSnapshot(await service.store())).toEqual(before);
  expect([...statuses.keys()]).toEqual(expect.arrayContaining([400, 404, 405, 415]));

  service.model.script({ text: 'Still fine.' });
  const plain = await service.post(GENERATE, userSays('Hi'));
  expect(plain.status).toBe(200);
  expect((await plain.json()).text).toBe('Still fine.');
  const victim = await service.app.request(`/threads/${VICTIM.threadId}/messages?resourceId=${VICTIM.resourceId}`);
  expect((await victim.json()).total).toBe(4);
}, 120_000);
