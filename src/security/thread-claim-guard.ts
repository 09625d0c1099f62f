import type { MiddlewareHandler } from 'hono';
import { COMPANION_AGENT_ID } from '../mastra/agents/companion-agent.ts';
import { findOwnedThread } from '../threads/thread-service.ts';
import { callerOf, effectiveResourceId } from './caller.ts';
import '../routes/context.ts';

/**
 * @module Mastra's routes that create a thread under a client-chosen id
 * (`POST /api/memory/threads` and its `network` twin with `threadId`, a clone
 * with `newThreadId`; open in development, for Studio) write it with the
 * store's upsert: naming an existing thread hands that thread, messages and
 * all, to the caller. This middleware answers a request naming another
 * owner's thread as the thread API does (404), before Mastra sees it.
 */
const CREATES: ReadonlyArray<{ path: RegExp; field: 'threadId' | 'newThreadId' }> = [
  { path: /^\/api\/memory(\/network)?\/threads$/, field: 'threadId' },
  { path: /^\/api\/memory\/threads\/[^/]+\/clone$/, field: 'newThreadId' },
];

export function threadClaimGuard(): MiddlewareHandler {
  return async (c, next) => {
    const create = c.req.method === 'POST' && CREATES.find((candidate) => candidate.path.test(c.req.path));
    if (!create) return next();
    const body = (await c.req.raw.clone().json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const threadId = body?.[create.field];
    const memory = await c.get('mastra').getAgent(COMPANION_AGENT_ID).getMemory();
    // Without an id Mastra makes a fresh one; without memory or a valid body Mastra answers itself.
    if (typeof threadId !== 'string' || !memory) return next();
    const requested = typeof body?.resourceId === 'string' ? body.resourceId : undefined;
    const owner = effectiveResourceId(callerOf(c.get('requestContext')), requested) ?? '';
    await findOwnedThread(memory, threadId, owner);
    return next();
  };
}
