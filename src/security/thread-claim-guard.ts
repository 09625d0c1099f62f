import type { MiddlewareHandler } from 'hono';
import { COMPANION_AGENT_ID } from '../mastra/agents/companion-agent.ts';
import { findOwnedThread } from '../threads/thread-service.ts';
import { callerOf, mastraResourceId } from './caller.ts';
import { jsonBodyForMastra } from './mastra-body.ts';
import '../routes/context.ts';

/**
 * @module Mastra's routes that create a thread under a client-chosen id
 * (`POST /api/memory/threads` and its `network` twin with `threadId`, a clone
 * with `newThreadId`, a Responses API conversation with `conversation_id`;
 * open in development, for Studio) write it with the store's upsert: naming an
 * existing thread hands that thread, messages and all, to the caller. This
 * middleware answers a request naming another owner's thread as the thread API
 * does (404), before Mastra sees it.
 */
interface ThreadCreation {
  path: RegExp;
  /** The body field naming the thread, and the one naming its owner. */
  field: string;
  ownerField: string;
  /** Mastra makes a conversation created without an owner its own owner (its id). */
  ownsItselfWhenUnowned?: true;
}

const CREATES: readonly ThreadCreation[] = [
  { path: /^\/api\/memory(\/network)?\/threads$/, field: 'threadId', ownerField: 'resourceId' },
  { path: /^\/api\/memory\/threads\/[^/]+\/clone$/, field: 'newThreadId', ownerField: 'resourceId' },
  { path: /^\/api\/v1\/conversations$/, field: 'conversation_id', ownerField: 'resource_id', ownsItselfWhenUnowned: true },
];

export function threadClaimGuard(): MiddlewareHandler {
  return async (c, next) => {
    const create = c.req.method === 'POST' && CREATES.find((candidate) => candidate.path.test(c.req.path));
    if (!create) return next();
    const body = await jsonBodyForMastra(c);
    const threadId = body?.[create.field];
    const memory = await c.get('mastra').getAgent(COMPANION_AGENT_ID).getMemory();
    // Without an id Mastra makes a fresh one; without memory or a valid body Mastra answers itself.
    if (typeof threadId !== 'string' || !memory) return next();
    const named = body?.[create.ownerField];
    const requested = typeof named === 'string' ? named : undefined;
    // As Mastra writes the thread: for the caller when authenticated (Studio names the agent's id), else the named owner.
    const owner = mastraResourceId(callerOf(c.get('requestContext')), requested) ?? (create.ownsItselfWhenUnowned ? threadId : '');
    await findOwnedThread(memory, threadId, owner);
    return next();
  };
}
