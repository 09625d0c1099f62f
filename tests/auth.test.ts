import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { parseConfig } from '../mastra.config.ts';
import { REFETCH_AFTER_FAILURE_MS } from '../src/security/jwks-auth.ts';
import { createApp } from '../src/app.ts';
import { startOpenAIStandIn, type OpenAIStandIn } from './fixtures/openai-stand-in.ts';
import { conversationOf, GENERATE, STREAM } from './fixtures/spec-requests.ts';
import { freePort, tempDatabaseUrl } from './fixtures/service.ts';
import { eventsOf, readFrames } from './fixtures/sse.ts';
import { standInEnv } from './fixtures/stand-in-env.ts';
import { call, hs256, TEST_JWT_SECRET as SECRET } from './fixtures/tokens.ts';

const say = (text: string, ids: Record<string, string> = {}) => ({ messages: [{ role: 'user', content: text }], ...ids });

type App = Awaited<ReturnType<typeof createApp>>['app'];

/** A token with `alg: none`: a header and payload with an empty signature. */
function unsigned(claims: Record<string, unknown>) {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...claims, exp: Math.floor(Date.now() / 1000) + 300 })}.`;
}

/** A token signed with the service's secret, but by another HMAC algorithm than the HS256 the README names. */
function hmacSigned(alg: 'HS384' | 'HS512', claims: Record<string, unknown>) {
  return new SignJWT(claims).setProtectedHeader({ alg }).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));
}

let model: OpenAIStandIn;
beforeAll(async () => {
  model = await startOpenAIStandIn();
});
beforeEach(() => model.reset());

/** Every app a test builds, closed after the file (a closed app frees its store, lock and Mastra instance). */
const opened: Array<Awaited<ReturnType<typeof createApp>>> = [];
afterAll(async () => {
  await Promise.all(opened.splice(0).map((companion) => companion.close()));
  await model.close();
});
async function openApp(config: ReturnType<typeof configFor>) {
  const companion = await createApp(config);
  opened.push(companion);
  return companion;
}

function configFor(env: Record<string, string>) {
  return parseConfig({
    ...standInEnv(model),
    MODEL_MAX_RETRIES: '0',
    LOG_LEVEL: 'error',
    DATABASE_URL: tempDatabaseUrl(),
    ...env,
  });
}

describe('with MASTRA_JWT_SECRET (HS256)', () => {
  let app: App;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    ({ app } = await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0' })));
    [alice, bob] = await Promise.all([hs256({ sub: 'alice' }), hs256({ sub: 'bob' })]);
  });

  const refusals: Array<[string, () => Promise<string | undefined>]> = [
    ['no token', async () => undefined],
    ['a malformed token', async () => 'not-a-jwt'],
    ['an expired token', () => hs256({ sub: 'alice' }, { expiresIn: '-1m' })],
    ['a token signed with another secret', () => hs256({ sub: 'alice' }, { secret: 'another-secret-that-is-also-32-characters-long' })],
    ['an alg:none token', async () => unsigned({ sub: 'alice' })],
    ['a token signed HS384 with the secret', () => hmacSigned('HS384', { sub: 'alice' })],
    ['a token signed HS512 with the secret', () => hmacSigned('HS512', { sub: 'alice' })],
    ['a token without a subject', () => hs256({ name: 'alice' })],
    ['a token that never expires (no exp)', () => new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET))],
  ];

  it.each(refusals)('answers 401 UNAUTHORIZED to %s, on SPEC, thread and built-in routes', async (_name, tokenFor) => {
    const token = await tokenFor();
    for (const [method, path, body] of [
      ['POST', GENERATE, say('Hi')],
      ['GET', '/threads'],
      ['GET', '/working-memory'],
      ['GET', '/api/openapi.json'],
      ['POST', '/stt'],
    ] as const) {
      const response = await call(app, method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED', details: {} });
    }
    expect(model.requests).toHaveLength(0);
  });

  it('answers a valid token sent under another spelling of "Bearer" with 401 on every route alike', async () => {
    // Mastra's own routes (the thread API and the built-in ones) take the scheme exactly as "Bearer ".
    for (const [method, path] of [['POST', GENERATE], ['GET', '/threads'], ['GET', '/api/openapi.json']] as const) {
      const headers = { authorization: `bearer ${alice}`, 'content-type': 'application/json' };
      const body = method === 'POST' ? JSON.stringify(say('Hi')) : undefined;
      expect((await app.request(path, { method, headers, body })).status, `${method} ${path}`).toBe(401);
    }
    expect(model.requests).toHaveLength(0);
  });

  // A header that was sent but could not be read was answered as if none had been.
  it.each([
    ['no header', undefined, 'This route needs an Authorization: Bearer <token> header.'],
    ['"bearer" in lower case', 'bearer x.y.z', 'The Authorization header must be "Bearer <token>": the scheme written Bearer, a space, then the token.'],
    ["SPEC's placeholder", 'Bearer <ACCESS_TOKEN>', 'The Authorization header must be "Bearer <token>": the scheme written Bearer, a space, then the token.'],
    ['a token that does not verify', 'Bearer x.y.z', 'The bearer token is invalid, expired or not signed by a trusted key.'],
  ])('says what was wrong with %s', async (_name, authorization, error) => {
    const response = await app.request('/threads', { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error, code: 'UNAUTHORIZED', details: {} });
  });

  it('leaves the liveness probe open', async () => {
    expect((await app.request('/health')).status).toBe(200);
  });

  it("makes the token's subject the owner: a thread id alone continues the caller's thread", async () => {
    model.script({ text: 'Hello Alice.' }, { text: 'Welcome back.' });
    const first = await call(app, 'POST', GENERATE, { token: alice, body: say('Hi', { threadId: 'alice-diary' }) });
    expect(first.status).toBe(200);
    const second = await call(app, 'POST', GENERATE, { token: alice, body: say('Again', { threadId: 'alice-diary', resourceId: 'alice' }) });
    expect(second.status).toBe(200);
    const thread = await call(app, 'GET', '/threads/alice-diary', { token: alice });
    expect(await thread.json()).toMatchObject({ id: 'alice-diary', resourceId: 'alice' });
  });

  it("runs a turn without threadId or resourceId statelessly, on both routes: it reads and stores nothing of the caller's", async () => {
    model.script({ text: 'Noted.' }, { text: 'Hello.' }, { text: ['Hello', ' again.'] });
    await call(app, 'POST', GENERATE, { token: alice, body: say('I am Alice', { threadId: 'alice-before-stateless' }) });
    const threadsBefore = await (await call(app, 'GET', '/threads', { token: alice })).json();

    const generated = await call(app, 'POST', GENERATE, { token: alice, body: say('Hi') });
    expect(generated.status).toBe(200);
    expect(generated.headers.get('x-thread-id')).toBeNull();
    expect((await generated.json()).text).toBe('Hello.');
    const streamed = await call(app, 'POST', STREAM, { token: alice, body: say('Hi') });
    expect(streamed.status).toBe(200);
    const events = eventsOf(await readFrames(streamed));
    expect(events.filter((e) => e.type === 'text').map((e) => e.text)).toEqual(['Hello', ' again.']);
    expect(events.at(-1)).toMatchObject({ type: 'run-finish' });

    for (const request of model.requests.slice(1)) expect(conversationOf(request)).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(await (await call(app, 'GET', '/threads', { token: alice })).json()).toEqual(threadsBefore);
  });

  it('refuses a request that names another owner, and stores nothing for it', async () => {
    const response = await call(app, 'POST', GENERATE, { token: bob, body: say('Hi', { threadId: 'bob-x', resourceId: 'alice' }) });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'FORBIDDEN', details: { field: 'resourceId' } });
    expect((await call(app, 'GET', '/threads?resourceId=alice', { token: bob })).status).toBe(403);
    expect(model.requests).toHaveLength(0);
  });

  it("never lets one user list, read, continue, rename or delete another's thread", async () => {
    model.script({ text: 'Noted.' });
    await call(app, 'POST', GENERATE, { token: alice, body: say('My secret', { threadId: 'alice-secret' }) });

    const bobsList = await (await call(app, 'GET', '/threads', { token: bob })).json();
    expect(bobsList.threads.map((t: { id: string }) => t.id)).not.toContain('alice-secret');
    for (const [method, path, body] of [
      ['GET', '/threads/alice-secret'],
      ['GET', '/threads/alice-secret/messages'],
      ['PATCH', '/threads/alice-secret', { title: 'mine now' }],
      ['DELETE', '/threads/alice-secret'],
    ] as const) {
      expect((await call(app, method, path, { token: bob, body })).status, `${method} ${path}`).toBe(404);
    }
    const continued = await call(app, 'POST', GENERATE, { token: bob, body: say('Tell me', { threadId: 'alice-secret' }) });
    expect(continued.status).toBe(404);
    expect(model.requests).toHaveLength(1);

    const messages = await (await call(app, 'GET', '/threads/alice-secret/messages', { token: alice })).json();
    expect(messages.messages.map((m: { content: string }) => m.content)).toEqual(['My secret', 'Noted.']);
  });

  it("reads and erases the caller's working memory only: naming another user is a 403, and theirs stays", async () => {
    model.script({ toolCalls: [{ name: 'updateWorkingMemory', args: { memory: '- Name: Alice' } }] }, { text: 'Noted, Alice.' });
    expect((await call(app, 'POST', GENERATE, { token: alice, body: say('I am Alice', { threadId: 'alice-remembered' }) })).status).toBe(200);

    for (const method of ['GET', 'DELETE']) {
      const refused = await call(app, method, '/working-memory?resourceId=alice', { token: bob });
      expect(refused.status, method).toBe(403);
      expect(await refused.json(), method).toMatchObject({ code: 'FORBIDDEN', details: { field: 'resourceId' } });
    }
    expect(await (await call(app, 'GET', '/working-memory', { token: bob })).json()).toEqual({ resourceId: 'bob', workingMemory: null, updatedAt: null });
    expect(await (await call(app, 'DELETE', '/working-memory', { token: bob })).json()).toEqual({ resourceId: 'bob', deleted: true });
    expect(await (await call(app, 'GET', '/working-memory', { token: alice })).json()).toMatchObject({ resourceId: 'alice', workingMemory: '- Name: Alice' });

    expect(await (await call(app, 'DELETE', '/working-memory', { token: alice })).json()).toEqual({ resourceId: 'alice', deleted: true });
    expect(await (await call(app, 'GET', '/working-memory?resourceId=alice', { token: alice })).json()).toMatchObject({ workingMemory: null });
  });

  it("scopes Mastra's memory routes (open in development mode, for Studio) to the caller", async () => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Kept.' });
    await call(dev, 'POST', GENERATE, { token: alice, body: say('Private', { threadId: 'alice-memory' }) });
    const asAlice = await call(dev, 'GET', '/api/memory/threads/alice-memory/messages?agentId=companionAgent', { token: alice });
    expect(asAlice.status).toBe(200);
    expect(JSON.stringify(await asAlice.json())).toContain('Private');
    const asBob = await call(dev, 'GET', '/api/memory/threads/alice-memory/messages?agentId=companionAgent', { token: bob });
    expect(asBob.status).toBe(403);
    expect(JSON.stringify(await asBob.json())).not.toContain('Private');
    const bobsList = await call(dev, 'GET', '/api/memory/threads?agentId=companionAgent&resourceId=alice', { token: bob });
    expect(JSON.stringify(await bobsList.json())).not.toContain('alice-memory');
  });

  it("refuses, in development, saving over another user's message by its id (Mastra checks only the thread it goes to)", async () => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Kept.' }, { text: 'Bob here.' });
    const { response } = await (await call(dev, 'POST', GENERATE, { token: alice, body: say('Private', { threadId: 'alice-saved' }) })).json();
    await call(dev, 'POST', GENERATE, { token: bob, body: say('Mine', { threadId: 'bob-own' }) });
    const reply = response.uiMessages.at(-1).id;
    const rewritten = { id: reply, threadId: 'bob-own', resourceId: 'bob', role: 'assistant', createdAt: new Date().toISOString(), content: { format: 2, parts: [{ type: 'text', text: 'BOB' }] } };

    const saved = await call(dev, 'POST', '/api/memory/save-messages?agentId=companionAgent', { token: bob, body: { messages: [rewritten] } });
    expect(saved.status).toBe(404);
    expect(await saved.json()).toMatchObject({ code: 'NOT_FOUND', details: { messageId: reply } });
    const alicesThread = await (await call(dev, 'GET', '/threads/alice-saved/messages', { token: alice })).json();
    expect(alicesThread.messages.map((message: { content: string }) => message.content)).toEqual(['Private', 'Kept.']);
  });

  it("refuses, in development, a native turn naming another user's message id among its messages (Mastra saves them by id)", async () => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Kept.' });
    const { response } = await (await call(dev, 'POST', GENERATE, { token: alice, body: say('Private', { threadId: 'alice-native' }) })).json();
    const reply = response.uiMessages.at(-1).id;
    const native = (path: string) =>
      dev.request(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json', 'x-mastra-client-type': 'client-js' },
        body: JSON.stringify({ messages: [{ id: reply, role: 'user', content: 'STOLEN' }], memory: { thread: 'bob-native', resource: 'bob' } }),
      });
    for (const path of [GENERATE, STREAM]) {
      const refused = await native(path);
      expect(refused.status, path).toBe(404);
      expect(await refused.json(), path).toMatchObject({ code: 'NOT_FOUND', details: { messageId: reply } });
    }
    expect(model.requests).toHaveLength(1);
    const alicesThread = await (await call(dev, 'GET', '/threads/alice-native/messages', { token: alice })).json();
    expect(alicesThread.messages.map((message: { content: string }) => message.content)).toEqual(['Private', 'Kept.']);
  });

  it.each([
    ['generate/vnext', (id: string) => ({ messages: [{ id, role: 'user', content: 'STOLEN' }], memory: { thread: 'bob-runs', resource: 'bob' } })],
    ['stream/vnext', (id: string) => ({ messages: [{ id, role: 'user', content: 'STOLEN' }], memory: { thread: 'bob-runs', resource: 'bob' } })],
    ['stream-until-idle', (id: string) => ({ messages: [{ id, role: 'user', content: 'STOLEN' }], memory: { thread: 'bob-runs', resource: 'bob' } })],
    ['signals', (id: string) => ({ resourceId: 'bob', threadId: 'bob-runs', ifIdle: {}, signal: { id, type: 'user-message', contents: 'STOLEN' } })],
  ])("refuses, in development, Mastra's %s naming another user's message id", async (route, body) => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Kept.' });
    const { response } = await (await call(dev, 'POST', GENERATE, { token: alice, body: say('Private', { threadId: 'alice-runs' }) })).json();
    const reply = response.uiMessages.at(-1).id;
    const refused = await call(dev, 'POST', `/api/agents/companionAgent/${route}`, { token: bob, body: body(reply) });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'NOT_FOUND', details: { messageId: reply } });
    expect(model.requests).toHaveLength(1);
    const alicesThread = await (await call(dev, 'GET', '/threads/alice-runs/messages', { token: alice })).json();
    expect(alicesThread.messages.map((message: { content: string }) => message.content)).toEqual(['Private', 'Kept.']);
  });

  it("refuses, in development, a run id on Mastra's message routes: they delivered to that run's thread, another user's too", async () => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Kept.' });
    const native = await dev.request(STREAM, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json', 'x-mastra-client-type': 'client-js' },
      body: JSON.stringify({ messages: 'Private', memory: { thread: 'alice-run', resource: 'alice' } }),
    });
    const runId = /"runId":"([^"]+)"/.exec(await native.text())![1];
    for (const [route, body] of [
      ['send-message', { message: 'BOB', runId }],
      ['queue-message', { message: 'BOB', runId }],
      ['signals', { runId, signal: { type: 'user-message', contents: 'BOB' } }],
    ] as const) {
      const refused = await call(dev, 'POST', `/api/agents/companionAgent/${route}`, { token: bob, body });
      expect(refused.status, route).toBe(400);
      expect(await refused.json(), route).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'runId' } });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(model.requests).toHaveLength(1);
    const alicesThread = await (await call(dev, 'GET', '/threads/alice-run/messages', { token: alice })).json();
    expect(alicesThread.messages.map((message: { content: string }) => message.content)).toEqual(['Private', 'Kept.']);
  });

  // Studio names the agent's id as the user of its deletions; the caller's own thread is then deleted, another's is not.
  it.each([
    ['a thread', async () => ['DELETE', '/api/memory/threads/alice-deleted?agentId=companionAgent&resourceId=companionAgent']],
    ['a conversation', async () => ['DELETE', '/api/v1/conversations/alice-deleted?resourceId=companionAgent']],
    ['its messages', async (store: App) => {
      const listed = await (await call(store, 'GET', '/api/memory/threads/alice-deleted/messages?agentId=companionAgent', { token: alice })).json();
      return ['POST', '/api/memory/messages/delete?agentId=companionAgent&resourceId=companionAgent', { messageIds: listed.messages.map((message: { id: string }) => message.id) }];
    }],
  ] as const)("deletes %s of the caller's in development, when named for the agent's id as Studio does", async (_name, requestFor) => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Kept.' });
    await call(dev, 'POST', GENERATE, { token: alice, body: say('Private', { threadId: 'alice-deleted' }) });
    const [method, path, body] = (await requestFor(dev)) as [string, string, unknown?];
    const messagesOf = () => call(dev, 'GET', '/threads/alice-deleted/messages', { token: alice });

    expect((await call(dev, method, path, { token: bob, body })).status).toBe(403);
    expect((await (await messagesOf()).json()).messages).toHaveLength(2);
    expect((await call(dev, method, path, { token: alice, body })).status).toBe(200);
    const after = await messagesOf();
    // Its messages deleted, the thread stays (and lists none); deleted whole, it is a 404.
    expect(after.status).toBe(path.includes('/messages/') ? 200 : 404);
    expect((await after.json()).messages).toEqual(path.includes('/messages/') ? [] : undefined);
  });

  // Studio names the agent's id as its user (memory.resource, a new thread's resourceId): Mastra takes the token's user
  // instead, and so does development; its Generate mode was refused with 403.
  it("takes the caller for the user Studio names, in development only: its chats and threads are the caller's", async () => {
    const studio = { messages: [{ role: 'user', content: 'Hi' }], memory: { thread: 'studio-chat', resource: 'companionAgent' } };
    const asStudio = (app: App, path: string, body: unknown) =>
      app.request(path, { method: 'POST', headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json', 'x-mastra-client-type': 'studio' }, body: JSON.stringify(body) });
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    model.script({ text: 'Hello Alice.' });
    expect((await asStudio(dev, GENERATE, studio)).status).toBe(200);
    expect(await (await call(dev, 'GET', '/threads/studio-chat', { token: alice })).json()).toMatchObject({ id: 'studio-chat', resourceId: 'alice' });
    const created = await call(dev, 'POST', '/api/memory/threads?agentId=companionAgent', { token: alice, body: { threadId: 'studio-new', resourceId: 'companionAgent' } });
    expect(created.status).toBe(200);
    expect(await (await call(dev, 'GET', '/threads/studio-new', { token: alice })).json()).toMatchObject({ resourceId: 'alice' });

    const refused = await asStudio(app, GENERATE, { ...studio, memory: { thread: 'studio-chat-2', resource: 'companionAgent' } });
    expect(refused.status).toBe(403);
    expect(model.requests).toHaveLength(1);
  });

  it("serves Studio's page without a token in development only, and never the API or the service's routes", async () => {
    const dev = (await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0', SERVER_MODE: 'development' }))).app;
    // Studio must load before its user can give it a token (its own form asks for one).
    const page = await dev.request('/agents/companionAgent/threads/new');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    for (const path of ['/threads', '/threads/alice-diary/messages', '/docs', '/api/agents', '/api/memory/threads?agentId=companionAgent', '/%74hreads', '/%61pi/agents']) {
      const response = await dev.request(path);
      expect(response.status, path).toBe(401);
      expect((await response.json()).code, path).toBe('UNAUTHORIZED');
    }
    expect((await app.request('/agents/companionAgent/threads/new')).status).toBe(404);
  });
});

describe('with AUTH_JWKS_URL (an identity provider)', () => {
  let app: App;
  let jwks: ReturnType<typeof createServer>;
  let sign: (claims: Record<string, unknown>, options?: { audience?: string; expires?: boolean }) => Promise<string>;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    sign = (claims, { audience = 'companion', expires = true } = {}) => {
      const token = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).setIssuer('https://id.example').setAudience(audience);
      return (expires ? token.setExpirationTime('5m') : token).sign(privateKey);
    };
    ({ app } = await openApp(configFor({ AUTH_JWKS_URL: url, AUTH_ISSUER: 'https://id.example', AUTH_AUDIENCE: 'companion', RATE_LIMIT_PER_MINUTE: '0' })));
  });
  afterAll(() => new Promise((resolve) => jwks.close(resolve)));

  it("accepts the provider's token and makes its subject the owner", async () => {
    model.script({ text: 'Hi Carol.' });
    const response = await call(app, 'POST', GENERATE, { token: await sign({ sub: 'carol' }), body: say('Hi', { threadId: 'carol-1' }) });
    expect(response.status).toBe(200);
    const list = await (await call(app, 'GET', '/threads', { token: await sign({ sub: 'carol' }) })).json();
    expect(list.threads.map((t: { id: string; resourceId: string }) => [t.id, t.resourceId])).toEqual([['carol-1', 'carol']]);
  });

  it("tells Studio who the provider's token stands for, so Studio lets its user in", async () => {
    // Studio asks this route; with no user in the answer it keeps asking for a token.
    const capabilities = async (token?: string, scheme = 'Bearer') =>
      (await app.request('/api/auth/capabilities', token ? { headers: { authorization: `${scheme} ${token}` } } : undefined)).json();
    expect(await capabilities(await sign({ sub: 'carol' }))).toMatchObject({ enabled: true, user: { id: 'carol' } });
    // Spelled otherwise, the header is refused on every other route (Mastra's own check): Studio is told the same.
    expect(await capabilities(await sign({ sub: 'carol' }), 'bearer')).not.toHaveProperty('user');
    expect(await capabilities()).not.toHaveProperty('user');
    expect(await capabilities(await sign({ sub: 'carol' }, { audience: 'someone-else' }))).not.toHaveProperty('user');
  });

  it("takes Auth0's subjects (auth0|…, google-oauth2|…) for users, as every route does", async () => {
    model.script({ text: 'Hi Dana.' });
    const token = await sign({ sub: 'google-oauth2|1234567890' });
    const response = await call(app, 'POST', GENERATE, { token, body: say('Hi', { threadId: 'dana-1', resourceId: 'google-oauth2|1234567890' }) });
    expect(response.status).toBe(200);
    const list = await (await call(app, 'GET', '/threads', { token })).json();
    expect(list.threads.map((t: { id: string; resourceId: string }) => [t.id, t.resourceId])).toEqual([['dana-1', 'google-oauth2|1234567890']]);
    expect(await (await app.request('/api/auth/capabilities', { headers: { authorization: `Bearer ${await sign({ sub: 'auth0|carol' })}` } })).json()).toMatchObject({
      user: { id: 'auth0|carol' },
    });
  });

  it("tells Studio no one is signed in for a subject outside the id pattern, which every route refuses", async () => {
    const token = await sign({ sub: 'carol smith' });
    const capabilities = await (await app.request('/api/auth/capabilities', { headers: { authorization: `Bearer ${token}` } })).json();
    expect(capabilities).toMatchObject({ enabled: true });
    expect(capabilities).not.toHaveProperty('user');
    expect((await call(app, 'GET', '/threads', { token })).status).toBe(401);
  });

  it('refuses a token for another audience, one that never expires (no exp), an HS256 token and an unsigned one', async () => {
    const tokens = [await sign({ sub: 'carol' }, { audience: 'someone-else' }), await sign({ sub: 'carol' }, { expires: false }), await hs256({ sub: 'carol' }), unsigned({ sub: 'carol' })];
    for (const token of tokens) {
      const response = await call(app, 'GET', '/threads', { token });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED', details: {} });
    }
  });
});

describe('with the identity provider out of reach', () => {
  let jwks: ReturnType<typeof createServer>;
  let url: string;
  /** What the key set URL answers now: the key set, an error status, or text that is no key set. */
  let answer: 'keys' | 'status 500' | 'not JSON' | 'no answer' = 'keys';
  /** How many times the key set was fetched. */
  let fetches = 0;
  let sign: (claims: Record<string, unknown>, kid?: string) => Promise<string>;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => {
      fetches += 1;
      if (answer === 'no answer') return;
      if (answer === 'status 500') return res.writeHead(500).end('oops');
      if (answer === 'not JSON') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    sign = (claims, kid = 'key-1') =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setAudience('companion').setExpirationTime('5m').sign(privateKey);
  });
  afterAll(() => new Promise((resolve) => jwks.close(resolve)));

  /** A fresh app (jose keeps a fetched key set for minutes) and the failure lines it logs. */
  async function appWith(env: Record<string, string> = {}) {
    const { app, mastra } = await openApp(configFor({ AUTH_JWKS_URL: url, AUTH_AUDIENCE: 'companion', RATE_LIMIT_PER_MINUTE: '0', ...env }));
    const failures: unknown[] = [];
    const logger = mastra.getLogger();
    const error = logger.error.bind(logger);
    logger.error = (message, ...args) => (failures.push([message, ...args]), error(message, ...args));
    return { app, failures };
  }

  it.each(['status 500', 'not JSON'] as const)('answers 503 AUTH_UNAVAILABLE, not 401, when the key set URL answers %s, and logs the failure', async (failure) => {
    answer = failure;
    const { app, failures } = await appWith();
    const response = await call(app, 'GET', '/threads', { token: await sign({ sub: 'carol' }) });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: "The identity provider's signing keys could not be fetched to check the token; try again shortly.",
      code: 'AUTH_UNAVAILABLE',
      details: {},
    });
    // What failed: the answer's status, or the JSON parser under jose's refusal of the answer.
    const cause = failure === 'not JSON' ? { errorClass: 'SyntaxError', errorCode: 'ERR_JOSE_GENERIC' } : { errorClass: 'KeySetUnavailable', errorCode: 'HTTP_500' };
    expect(failures).toContainEqual(['request failed', expect.objectContaining({ code: 'AUTH_UNAVAILABLE', status: 503, ...cause })]);
  });

  it('names a key set that does not answer within 5 s in the failure line (ERR_JWKS_TIMEOUT)', async () => {
    answer = 'no answer';
    const { app, failures } = await appWith();
    expect((await call(app, 'GET', '/threads', { token: await sign({ sub: 'carol' }) })).status).toBe(503);
    expect(failures).toContainEqual(['request failed', expect.objectContaining({ code: 'AUTH_UNAVAILABLE', errorCode: 'ERR_JWKS_TIMEOUT' })]);
  }, 15_000);

  // jose holds off only after a success: every request fetched again (and could wait out its 5 s timeout), so anyone
  // could drive fetches to a failing identity provider.
  it('fetches a key set that failed again only after REFETCH_AFTER_FAILURE_MS, answering 503 meanwhile', async () => {
    answer = 'status 500';
    const { app } = await appWith();
    const token = await sign({ sub: 'carol' });
    fetches = 0;
    const failedAt = Date.now();
    for (let i = 0; i < 5; i++) expect((await call(app, 'GET', '/threads', { token })).status).toBe(503);
    expect(fetches).toBe(1);

    // A request held off does not start the pause again: the pause counts from the failed fetch.
    vi.useFakeTimers({ toFake: ['Date'], now: failedAt + REFETCH_AFTER_FAILURE_MS / 2 });
    try {
      expect((await call(app, 'GET', '/threads', { token })).status).toBe(503);
      expect(fetches).toBe(1);
      // Past the pause from the failed fetch (a few ms after failedAt), well before one restarted by the held-off request.
      vi.setSystemTime(failedAt + REFETCH_AFTER_FAILURE_MS + 1_000);
      answer = 'keys';
      expect((await call(app, 'GET', '/threads', { token })).status).toBe(200);
      expect(fetches).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers 503 when the key set URL cannot be reached, and still 401 for a token no key of a reachable key set signed', async () => {
    const unreachable = await appWith({ AUTH_JWKS_URL: `http://127.0.0.1:${await freePort()}/jwks.json` });
    expect((await call(unreachable.app, 'GET', '/threads', { token: await sign({ sub: 'carol' }) })).status).toBe(503);

    answer = 'keys';
    const { app } = await appWith();
    expect((await call(app, 'GET', '/threads', { token: await sign({ sub: 'carol' }, 'key-unknown') })).status).toBe(401);
    expect((await call(app, 'GET', '/threads', { token: await sign({ sub: 'carol' }) })).status).toBe(200);
  });

  it('with a shared secret too, takes its tokens while the identity provider is out of reach, and answers 503 for the provider\'s', async () => {
    answer = 'status 500';
    const { app } = await appWith({ MASTRA_JWT_SECRET: SECRET });
    expect((await call(app, 'GET', '/threads', { token: await hs256({ sub: 'carol' }) })).status).toBe(200);
    expect((await call(app, 'GET', '/threads', { token: await sign({ sub: 'carol' }) })).status).toBe(503);
    expect((await call(app, 'GET', '/threads', { token: 'not-a-token' })).status).toBe(401);
  });
});

describe('rate limiting', () => {
  afterAll(() => vi.useRealTimers());

  it('answers 429 RATE_LIMITED with Retry-After and RateLimit headers over the limit, per client, and again after the window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { app } = await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '2' }));
    const [dan, eve] = await Promise.all([hs256({ sub: 'dan' }, { expiresIn: '1h' }), hs256({ sub: 'eve' }, { expiresIn: '1h' })]);

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(app, 'GET', '/threads', { token: dan })).status);
    expect(statuses).toEqual([200, 200, 429]);

    const limited = await call(app, 'GET', '/threads', { token: dan });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-limit')).toBe('2');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited.json()).toMatchObject({ code: 'RATE_LIMITED', details: { retryAfterSeconds: expect.any(Number) } });

    expect((await call(app, 'GET', '/threads', { token: eve })).status).toBe(200);
    expect((await app.request('/health')).status).toBe(200);
    // A request refused with 401 has no subject to count for: it is never limited, and counts for no one.
    for (let i = 0; i < 3; i++) expect((await call(app, 'GET', '/threads', {})).status).toBe(401);
    expect((await call(app, 'GET', '/threads', { token: eve })).status).toBe(200);

    vi.setSystemTime(Date.now() + 61_000);
    expect((await call(app, 'GET', '/threads', { token: dan })).status).toBe(200);
  });

  it('answers a 401 and a 429 like every other error: with the stack under NODE_ENV=development only', async () => {
    for (const nodeEnv of ['development', 'production']) {
      const { app } = await openApp(configFor({ MASTRA_JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '1', NODE_ENV: nodeEnv }));
      const unauthorized = await call(app, 'GET', '/threads', {});
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
      const token = await hs256({ sub: 'fay' }, { expiresIn: '1h' });
      await call(app, 'GET', '/threads', { token });
      const limited = await call(app, 'GET', '/threads', { token });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe(String((await limited.clone().json()).details.retryAfterSeconds));
      for (const body of [await unauthorized.json(), await limited.json()]) {
        if (nodeEnv === 'development') expect(body.stack, nodeEnv).toEqual(expect.stringContaining('ApiError'));
        else expect(body, nodeEnv).not.toHaveProperty('stack');
      }
    }
  });

  it('counts in process while the shared PostgreSQL store does not answer: turns that need no database go on, limited', async () => {
    const { app } = await openApp(configFor({ DATABASE_URL: `postgres://companion@127.0.0.1:${await freePort()}/down`, RATE_LIMIT_PER_MINUTE: '2' }));
    model.script({ text: 'One.' }, { text: 'Two.' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(app, 'POST', GENERATE, { body: { messages: [{ role: 'user', content: 'Hi' }] } })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('counts by address without auth, and not at all with RATE_LIMIT_PER_MINUTE=0', async () => {
    const limited = (await openApp(configFor({ RATE_LIMIT_PER_MINUTE: '1' }))).app;
    expect((await call(limited, 'GET', '/threads?resourceId=x')).status).toBe(200);
    expect((await call(limited, 'GET', '/threads?resourceId=y')).status).toBe(429);

    // The working-memory API counts with the thread API.
    expect((await call(limited, 'GET', '/working-memory?resourceId=x')).status).toBe(429);
    expect((await call(limited, 'DELETE', '/working-memory?resourceId=x')).status).toBe(429);

    const unlimited = (await openApp(configFor({ RATE_LIMIT_PER_MINUTE: '0' }))).app;
    for (let i = 0; i < 5; i++) expect((await call(unlimited, 'GET', '/threads?resourceId=x')).status).toBe(200);
  });
});
