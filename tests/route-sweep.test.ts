import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ROUTES } from '../src/security/route-gate.ts';
import { GENERATE, startApp, type AppHarness } from './fixtures/app-harness.ts';
import { NATIVE } from './fixtures/spec-requests.ts';
import { storeSnapshot } from './fixtures/store-snapshot.ts';
import { hs256, TEST_JWT_SECRET as SECRET } from './fixtures/tokens.ts';
import { seedVictim, VICTIM, VICTIM_SECRETS } from './fixtures/victim.ts';

/**
 * Every route the server registers (over 400, Mastra's included), tried by an attacker aimed at the victim's thread:
 * without credentials in production, and with another user's valid token in both modes. No answer may carry the
 * victim's data, and nothing of theirs may change.
 */

/**
 * Routes Mastra answers ahead of every user middleware, so the gate cannot
 * close them: `/health`, a constant browser-session stub, and the
 * framework-public sign-in routes (Mastra skips user middleware for them by
 * design). The README lists them; none holds data.
 */
const ANSWERED_BY_MASTRA = [
  'GET /health',
  'GET /api/agents/:agentId/browser/session',
  'GET /api/auth/capabilities',
  'GET /api/auth/me',
  'GET /api/auth/sso/login',
  'GET /api/auth/sso/callback',
  'POST /api/auth/logout',
  'POST /api/auth/refresh',
  'POST /api/auth/credentials/sign-in',
  'POST /api/auth/credentials/sign-up',
];

/** Every (method, path) the server registers, read from the Hono app itself; `ALL` routes are tried as GET and POST. */
function registeredRoutes(service: AppHarness) {
  const routes = (service.app as unknown as { routes: Array<{ method: string; path: string }> }).routes;
  const pairs = routes
    .filter((route) => !(route.method === 'ALL' && route.path.endsWith('*')))
    .flatMap((route) => (route.method === 'ALL' ? ['GET', 'POST'] : [route.method]).map((method) => `${method} ${route.path}`));
  return [...new Set(pairs)].map((pair) => pair.split(' ') as [string, string]);
}

/**
 * A concrete URL for a route pattern: the caller names itself `attacker` (without auth, the service
 * knows no better) and aims at the victim's thread and resource wherever an id goes.
 */
function aimedAtVictim(pattern: string) {
  return pattern
    .replace(/:agentId\b[^/]*/, 'companionAgent')
    .replace(/:threadId\b[^/]*/, VICTIM.threadId)
    .replace(/:resourceId\b[^/]*/, VICTIM.resourceId)
    .replace(/:[A-Za-z]+(\{[^}]*\})?\??/g, 'x')
    .replace(/\*/g, 'x');
}
const ATTACKER_QUERY = `?resourceId=attacker&threadId=${VICTIM.threadId}&agentId=companionAgent`;

const attackBody = JSON.stringify({
  messages: 'Tell me everything about victim-thread',
  memory: { thread: VICTIM.threadId, resource: 'attacker' },
  threadId: VICTIM.threadId,
  resourceId: 'attacker',
  workingMemory: 'injected',
  title: 'taken over',
});

describe('the production surface', () => {
  let service: AppHarness;
  beforeAll(async () => {
    service = await startApp();
    await seedVictim(service);
  });
  afterAll(() => service.close());

  it('answers every registered route without credentials with 404/405, except the listed ones, and leaks and writes nothing', async () => {
    const answering = new Set([...PUBLIC_ROUTES.map((route) => `${route.method} ${route.path}`), ...ANSWERED_BY_MASTRA].map(aimedAtVictim));
    const before = await storeSnapshot(await service.store());
    const routes = registeredRoutes(service);
    expect(routes.length).toBeGreaterThan(400);

    for (const [method, pattern] of routes) {
      const path = aimedAtVictim(pattern);
      for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'application/json', ...NATIVE }]) {
        const response = await service.app.request(path + ATTACKER_QUERY, { method, headers, body: method === 'GET' ? undefined : attackBody });
        const text = await response.text();
        const route = `${method} ${pattern}`;
        for (const secret of VICTIM_SECRETS) expect(text, route).not.toContain(secret);
        expect(response.status, route).toBeLessThan(500);
        if (answering.has(`${method} ${path}`)) continue;
        expect([404, 405], `${route} answered ${response.status}: ${text.slice(0, 200)}`).toContain(response.status);
        expect(JSON.parse(text).code, route).toMatch(/^(NOT_FOUND|INVALID_REQUEST)$/);
      }
    }
    expect(await storeSnapshot(await service.store())).toEqual(before);
    expect(service.model.requests).toHaveLength(0);
  });

  it("answers a path Mastra took for one open without a token (another case, a trailing slash) with the gate's JSON 404, with or without auth", async () => {
    const variants = [['GET', '/READY'], ['GET', '/Ready'], ['GET', '/ready/'], ['GET', '/API/AUTH/ME'], ['GET', '/api/auth/me/'], ['POST', '/API/AUTH/LOGOUT']];
    const withAuth = await startApp({ MASTRA_JWT_SECRET: SECRET });
    try {
      for (const app of [service, withAuth]) {
        for (const [method, path] of variants) {
          const response = await app.app.request(path!, { method });
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(await response.json(), `${method} ${path}`).toMatchObject({ code: 'NOT_FOUND' });
        }
      }
    } finally {
      await withAuth.close();
    }
  });

  it("never publishes the agent's instructions", async () => {
    for (const path of ['/api/agents', '/api/agents/companionAgent', '/api/agents/companionAgent/instructions']) {
      const response = await service.app.request(path);
      expect(response.status).toBe(404);
    }
    service.model.script({ text: 'ok' });
    const reply = await service.post(GENERATE, { messages: 'Hi' }, NATIVE);
    expect(reply.status).toBe(200);
    const text = await reply.text();
    expect(service.model.requests[0].messages[0].content).toContain('You are the Friend');
    expect(text).not.toContain('You are the Friend');
    expect(JSON.parse(text).request.body.messages[0]).toEqual({ role: 'system', content: '[redacted]' });
  });

  it('lists exactly the allowed routes, and the ones Mastra answers itself, in the README', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8').split('\n');
    /** The `METHOD PATH` rows of the first table after a heading. */
    const table = (heading: string) => {
      const start = readme.findIndex((line) => line.trim() === heading);
      expect(start, heading).toBeGreaterThan(-1);
      const firstRow = readme.findIndex((line, i) => i > start && line.startsWith('|'));
      const end = readme.findIndex((line, i) => i > firstRow && !line.startsWith('|'));
      return readme.slice(firstRow + 2, end).map((row) => {
        const [method, path] = row.split('|').slice(1, 3).map((cell) => cell.trim().replaceAll('`', ''));
        return `${method} ${path}`;
      });
    };
    const allowed = table('#### Routes served in production');
    const mastraAnswered = table('#### Answered by Mastra before any middleware');
    expect(allowed.sort()).toEqual(PUBLIC_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
    expect(mastraAnswered.sort()).toEqual([...ANSWERED_BY_MASTRA].sort());
  });
});

/** What the store holds of the victim: their threads, those threads' messages, their working memory. */
async function victimRows(service: AppHarness) {
  const snapshot = await storeSnapshot(await service.store());
  const threads = snapshot.threads.filter((thread) => thread.resourceId === VICTIM.resourceId || thread.id === VICTIM.threadId);
  const threadIds = new Set(threads.map((thread) => thread.id));
  return { threads, messages: snapshot.messages.filter((message) => message.threadId !== undefined && threadIds.has(message.threadId)), workingMemory: snapshot.workingMemory[VICTIM.resourceId] };
}

function isEventStream(response: Response) {
  return response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
}

/** The response's text; an event stream that stays open (Mastra's background-task feed) is read until it goes quiet for a second. */
async function answerOf(response: Response) {
  if (!isEventStream(response) || !response.body) return response.text();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const next = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(resolve, 1_000))]);
    if (!next || next.done) break;
    text += next.value;
  }
  await reader.cancel().catch(() => {});
  return text;
}

const tokenFor = (sub: string) => hs256({ sub }, { expiresIn: '1h' });

for (const mode of ['production', 'development'] as const) {
  describe(`the ${mode} surface with auth on, swept with another user's valid token`, () => {
    let service: AppHarness;
    beforeAll(async () => {
      service = await startApp({ MASTRA_JWT_SECRET: SECRET, SERVER_MODE: mode });
      await seedVictim(service);
    });
    afterAll(() => service.close());

    it("answers no registered route with the victim's data, and accepts no write for the victim", { timeout: 120_000 }, async () => {
      const authorization = `Bearer ${await tokenFor('attacker')}`;
      const before = await victimRows(service);
      expect(before.messages).toHaveLength(4);
      const routes = registeredRoutes(service);
      expect(routes.length).toBeGreaterThan(400);
      // Aimed at the victim's thread under the attacker's own name, and under the victim's.
      const aims = [
        { query: ATTACKER_QUERY, body: attackBody },
        {
          query: ATTACKER_QUERY.replace('resourceId=attacker', `resourceId=${VICTIM.resourceId}`),
          body: attackBody.replaceAll('"attacker"', JSON.stringify(VICTIM.resourceId)),
        },
      ];

      // An event stream that stays open is read while the sweep goes on: each ends only after a quiet second.
      const answers: Promise<void>[] = [];
      for (const [method, pattern] of routes) {
        const path = aimedAtVictim(pattern);
        for (const headers of [{ 'content-type': 'application/json', authorization }, { 'content-type': 'application/json', authorization, ...NATIVE }]) {
          for (const aim of aims) {
            const response = await service.app.request(path + aim.query, { method, headers, body: method === 'GET' ? undefined : aim.body });
            const route = `${method} ${pattern} (${aim.query})`;
            const checked = answerOf(response).then((text) => {
              for (const secret of VICTIM_SECRETS) expect(text, route).not.toContain(secret);
              // Development opens Mastra's routes as they are, some of which fail on features this service does not configure.
              if (mode === 'production') expect(response.status, `${route} answered ${response.status}: ${text.slice(0, 200)}`).toBeLessThan(500);
            });
            checked.catch(() => {}); // reported by Promise.all below
            answers.push(checked);
            if (!isEventStream(response)) await checked;
          }
        }
      }
      await Promise.all(answers);
      expect(await victimRows(service)).toEqual(before);
      expect(service.model.requests).toHaveLength(0);
    });
  });
}

