/**
 * @module Mastra's own thread deletion (`DELETE /api/memory/threads/:threadId`
 * and its `network` twin, open in development for Studio) takes its place in
 * the thread's queue, as the thread API's deletion does (thread-service.ts):
 * it waits for the turn running on the thread, and the turns queued before it,
 * so nothing they store outlives the thread. Mastra's handler then checks
 * access and deletes as before.
 */
import type { MiddlewareHandler } from 'hono';
import { CLIENT_GONE } from '../contract/errors.ts';
import { COMPANION_AGENT_ID } from '../mastra/agents/companion-agent.ts';
import { callerOf, effectiveResourceId } from '../security/caller.ts';
import type { TurnLock } from './turn-lock.ts';
import '../routes/context.ts';

const MASTRA_THREAD_DELETION = /^\/api\/memory(?:\/network)?\/threads\/([^/]+)$/;

export function queueMastraThreadDeletions(lock: TurnLock): MiddlewareHandler {
  return async (c, next) => {
    const threadId = c.req.method === 'DELETE' ? decoded(MASTRA_THREAD_DELETION.exec(c.req.path)?.[1]) : undefined;
    if (!threadId) return next();
    const memory = await c.get('mastra').getAgent(COMPANION_AGENT_ID).getMemory();
    // No thread (or no store to ask): nothing runs on it, and Mastra answers for itself.
    const thread = await memory?.getThreadById({ threadId }).catch(() => null);
    if (!thread) return next();
    // A caller who is not the owner waits in a queue of their own, as on every path (turn-lock.ts).
    const owner = effectiveResourceId(callerOf(c.get('requestContext')), c.req.query('resourceId')) ?? thread.resourceId;
    const signal = c.req.raw.signal;
    const release = await lock.acquire({ owner, threadId }, signal).catch((error: unknown) => {
      throw signal.aborted ? CLIENT_GONE : error;
    });
    try {
      await next();
    } finally {
      release();
    }
  };
}

function decoded(segment: string | undefined): string | undefined {
  try {
    return segment && decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
