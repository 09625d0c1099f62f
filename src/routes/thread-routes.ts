/**
 * @module The thread API, and beside it the user's working memory (which outlives
 * their threads): each route is data (method, path, schemas) so Mastra's server
 * validates it and documents it in OpenAPI. Paths live outside `/api`, which
 * Mastra reserves for its own routes.
 */
import type { MiddlewareHandler } from 'hono';
import { createRoute } from '@mastra/server/server-adapter';
import type { Mastra } from '@mastra/core/mastra';
import type { RequestContext } from '@mastra/core/request-context';
import { z } from 'zod';
import { invalidRequest } from '../contract/errors.ts';
import { COMPANION_AGENT_ID, SERVICE_PATHS } from '../contract/paths.ts';
import { callerOf, effectiveResourceId } from '../security/caller.ts';
import {
  messageList,
  ownerQuery,
  ownerRequired,
  pageQuery,
  threadIdParam,
  threadList,
  threadPatch,
  threadSchema,
  toSpecThread,
  toThreadMessage,
} from '../contract/thread.ts';
import { workingMemoryErased, workingMemorySchema } from '../contract/working-memory.ts';
import type { TurnLock } from '../threads/turn-lock.ts';
import { eraseWorkingMemory, readWorkingMemory } from '../threads/working-memory.ts';
import { readJsonBody } from './agent-call.ts';
import {
  deleteOwnedThread,
  getOwnedThread,
  listOwnedThreads,
  listThreadMessages,
  requireMemory,
  updateOwnedThread,
} from '../threads/thread-service.ts';

const TAGS = ['Threads'];
const WORKING_MEMORY_TAGS = ['Working memory'];

async function memoryOf(mastra: Mastra) {
  return requireMemory(await mastra.getAgent(COMPANION_AGENT_ID).getMemory());
}

/** The owner the request acts for: the authenticated caller, else the `resourceId` query parameter. */
function ownerOf(requestContext: RequestContext, resourceId: string | undefined): string {
  const owner = effectiveResourceId(callerOf(requestContext), resourceId);
  if (!owner) throw ownerRequired();
  return owner;
}

/**
 * The thread and working-memory API's bodies, checked before Mastra parses them. The rename's by the agent routes'
 * rules: `application/json` only (415), at most 1 MiB (413), JSON (400), each answer saying which (Mastra's own
 * answers to the last two say only their status). The other routes take none: Mastra hands a handler the body's
 * fields after the path's and the query's, so a `DELETE` body's `threadId` or `resourceId` would name what it
 * deletes, unchecked.
 */
const checkBody: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'PATCH') await readJsonBody(c);
  else if (hasBody(c.req.raw)) throw invalidRequest(`${c.req.method} ${c.req.path} takes no request body.`);
  await next();
};

/** As HTTP frames a request: a body is announced by a length above zero or a transfer coding. */
function hasBody(request: Request): boolean {
  return Number(request.headers.get('content-length') ?? 0) > 0 || request.headers.has('transfer-encoding');
}

/** The request's access line (trace-id.ts) names the thread and the owner it is about. */
const nameConversation: MiddlewareHandler = async (c, next) => {
  const threadId = c.req.path.split('/')[2];
  c.set('conversation', { threadId: threadId || undefined, resourceId: callerOf(c.get('requestContext')) ?? c.req.query('resourceId') });
  await next();
};

// `/threads/*` covers `/threads` too: Hono's wildcard matches the bare path.
export const threadMiddleware: Array<{ path: string; handler: MiddlewareHandler }> = [
  { path: `${SERVICE_PATHS.threads}/*`, handler: nameConversation },
  { path: `${SERVICE_PATHS.threads}/*`, handler: checkBody },
  { path: SERVICE_PATHS.workingMemory, handler: nameConversation },
  { path: SERVICE_PATHS.workingMemory, handler: checkBody },
];

/**
 * `specErrors` turns every handler failure into a SPEC error body (see error-handler.ts);
 * `turnLock` is the agent routes' per-thread lock, which a deletion waits for.
 */
export function createThreadRoutes(
  specErrors: <R extends { handler(params: any): Promise<unknown> }>(route: R) => R,
  turnLock: TurnLock,
) {
  return [
    createRoute({
      method: 'GET',
      path: SERVICE_PATHS.threads,
      responseType: 'json',
      queryParamSchema: pageQuery,
      responseSchema: threadList,
      summary: "List a user's threads, most recently active first",
      tags: TAGS,
      handler: async ({ mastra, requestContext, resourceId, page, perPage }) => {
        const result = await listOwnedThreads(await memoryOf(mastra), ownerOf(requestContext, resourceId), page, perPage);
        return { threads: result.threads.map(toSpecThread), page, perPage, total: result.total, hasMore: result.hasMore };
      },
    }),
    createRoute({
      method: 'GET',
      path: `${SERVICE_PATHS.threads}/:threadId`,
      responseType: 'json',
      pathParamSchema: threadIdParam,
      queryParamSchema: ownerQuery,
      responseSchema: threadSchema,
      summary: 'Read one thread',
      tags: TAGS,
      handler: async ({ mastra, requestContext, threadId, resourceId }) =>
        toSpecThread(await getOwnedThread(await memoryOf(mastra), threadId, ownerOf(requestContext, resourceId))),
    }),
    createRoute({
      method: 'GET',
      path: `${SERVICE_PATHS.threads}/:threadId/messages`,
      responseType: 'json',
      pathParamSchema: threadIdParam,
      queryParamSchema: pageQuery,
      responseSchema: messageList,
      summary: "Read a thread's messages, oldest first",
      tags: TAGS,
      handler: async ({ mastra, requestContext, threadId, resourceId, page, perPage }) => {
        const result = await listThreadMessages(await memoryOf(mastra), threadId, ownerOf(requestContext, resourceId), page, perPage);
        return { messages: result.messages.map(toThreadMessage), page, perPage, total: result.total, hasMore: result.hasMore };
      },
    }),
    createRoute({
      method: 'PATCH',
      path: `${SERVICE_PATHS.threads}/:threadId`,
      responseType: 'json',
      pathParamSchema: threadIdParam,
      queryParamSchema: ownerQuery,
      bodySchema: threadPatch,
      responseSchema: threadSchema,
      summary: 'Rename a thread and/or replace its tags',
      tags: TAGS,
      handler: async ({ mastra, requestContext, threadId, resourceId, title, tags }) => {
        const change = { title, metadata: tags ? { tags } : undefined };
        return toSpecThread(await updateOwnedThread(await memoryOf(mastra), threadId, ownerOf(requestContext, resourceId), () => change));
      },
    }),
    createRoute({
      method: 'DELETE',
      path: `${SERVICE_PATHS.threads}/:threadId`,
      responseType: 'json',
      pathParamSchema: threadIdParam,
      queryParamSchema: ownerQuery,
      responseSchema: z.object({ id: z.string(), deleted: z.literal(true) }),
      summary: 'Delete a thread and its messages',
      tags: TAGS,
      handler: async ({ mastra, requestContext, threadId, resourceId, abortSignal }) => {
        const turns = { lock: turnLock, signal: abortSignal };
        await deleteOwnedThread(await memoryOf(mastra), threadId, ownerOf(requestContext, resourceId), turns);
        return { id: threadId, deleted: true as const };
      },
    }),
    createRoute({
      method: 'GET',
      path: SERVICE_PATHS.workingMemory,
      responseType: 'json',
      queryParamSchema: ownerQuery,
      responseSchema: workingMemorySchema,
      summary: 'Read what the companion keeps about a user across their threads',
      tags: WORKING_MEMORY_TAGS,
      handler: async ({ mastra, requestContext, resourceId }) =>
        readWorkingMemory(await memoryOf(mastra), ownerOf(requestContext, resourceId)),
    }),
    createRoute({
      method: 'DELETE',
      path: SERVICE_PATHS.workingMemory,
      responseType: 'json',
      queryParamSchema: ownerQuery,
      responseSchema: workingMemoryErased,
      summary: "Erase a user's working memory (their threads are deleted apart); answered alike when none is stored",
      tags: WORKING_MEMORY_TAGS,
      handler: async ({ mastra, requestContext, resourceId }) => {
        const owner = ownerOf(requestContext, resourceId);
        await eraseWorkingMemory(await memoryOf(mastra), owner);
        return { resourceId: owner, deleted: true as const };
      },
    }),
  ].map(specErrors);
}
