/**
 * @module Mastra's own deletions, open in development for Studio, take their
 * place in the queue of the thread they touch, as the thread API's deletion
 * does (thread-service.ts): a thread (`DELETE /api/memory/threads/:threadId`
 * and its `network` twin, or a Responses API conversation,
 * `DELETE /api/v1/conversations/:conversationId`) or messages
 * (`POST /api/memory/messages/delete` and its twin). They wait for the turn
 * running on the thread, and the turns queued before it, so a running turn
 * neither outlives its deleted thread nor stores a deleted message again.
 * Mastra's handler then checks access and deletes as before.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { COMPANION_AGENT_ID } from '../contract/paths.ts';
import { callerOf, mastraResourceId } from '../security/caller.ts';
import { jsonBodyForMastra } from '../security/mastra-body.ts';
import { storedMessagesById, waitForThreadTurns } from './thread-service.ts';
import { lockName, type Release, type TurnKey, type TurnLock } from './turn-lock.ts';
import '../routes/context.ts';

const THREAD_DELETION = /^\/api\/(?:memory(?:\/network)?\/threads|v1\/conversations)\/([^/]+)$/;
/** Where Mastra's deletions are: the middleware's mounts. */
export const MASTRA_DELETION_PATHS = ['/api/memory/*', '/api/v1/conversations/*'];
const MESSAGE_DELETION = /^\/api\/memory(?:\/network)?\/messages\/delete$/;

export function queueMastraDeletions(lock: TurnLock): MiddlewareHandler {
  return async (c, next) => {
    const owners = await threadOwnersTouched(c);
    if (owners.size === 0) return next();
    // A caller who is not the owner waits in a queue of their own, as on every path (turn-lock.ts). The caller is
    // who Mastra's handler acts for: with auth, the token's user, whatever the request names (Studio names the agent).
    const caller = mastraResourceId(callerOf(c.get('requestContext')), c.req.query('resourceId'));
    const keys = [...owners].map(([threadId, owner]): TurnKey => ({ owner: caller ?? owner, threadId }));
    // One order for every deletion, so two that touch the same threads never wait on each other.
    keys.sort((a, b) => lockName(a).localeCompare(lockName(b)));
    const releases: Release[] = [];
    try {
      for (const key of keys) releases.push(await waitForThreadTurns(lock, key, c.req.raw.signal));
      await next();
    } finally {
      for (const release of releases) release();
    }
  };
}

/** The threads a deletion touches, with their owners; none when there is nothing (or no store) to look them up in. */
async function threadOwnersTouched(c: Context): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  const threadId = c.req.method === 'DELETE' ? decoded(THREAD_DELETION.exec(c.req.path)?.[1]) : undefined;
  const messageIds = c.req.method === 'POST' && MESSAGE_DELETION.test(c.req.path) ? await messageIdsOf(c) : [];
  if (!threadId && messageIds.length === 0) return owners;
  const memory = await c.get('mastra').getAgent(COMPANION_AGENT_ID).getMemory();
  if (!memory) return owners;
  try {
    if (threadId) {
      const thread = await memory.getThreadById({ threadId });
      if (thread) owners.set(thread.id, thread.resourceId);
    }
    for (const message of messageIds.length > 0 ? await storedMessagesById(memory, messageIds) : []) {
      if (message.threadId && message.resourceId) owners.set(message.threadId, message.resourceId);
    }
  } catch {
    // A store that does not answer: Mastra's handler answers for itself.
  }
  return owners;
}

/** Mastra's body takes one id or many, as strings or `{id}` objects. */
async function messageIdsOf(c: Context): Promise<string[]> {
  const body = await jsonBodyForMastra(c);
  const ids = Array.isArray(body?.messageIds) ? body.messageIds : [body?.messageIds];
  return ids.map((id) => (typeof id === 'object' && id !== null ? (id as { id?: unknown }).id : id)).filter((id): id is string => typeof id === 'string');
}

function decoded(segment: string | undefined): string | undefined {
  try {
    return segment && decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
