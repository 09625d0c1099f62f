import type { MiddlewareHandler } from 'hono';
import { invalidRequest } from '../contract/errors.ts';
import { COMPANION_AGENT_ID } from '../contract/paths.ts';
import { findOwnedThread, refuseOthersMessages } from '../threads/thread-service.ts';
import { callerOf, mastraResourceId } from './caller.ts';
import { jsonBodyForMastra } from './mastra-body.ts';
import '../routes/context.ts';

/**
 * @module Mastra's routes that write a record under a client-chosen id, open
 * in development for Studio, write it with the store's upsert: naming an
 * existing record hands it to the caller.
 * - A thread (`POST /api/memory/threads` and its `network` twin with
 *   `threadId`, a clone with `newThreadId`, a Responses API conversation with
 *   `conversation_id`): the thread, messages and all.
 * - A message: Mastra's message save (`POST /api/memory/save-messages` and its
 *   twin) and its agent runs on other paths than SPEC's (`…/generate/vnext`,
 *   `…/stream-until-idle`, a signal's `id` on `…/signals`, …) save a message
 *   under the `id` it is given. Mastra checks the thread it is saved to, not the
 *   one it is in, so the message left its owner's thread for the caller's,
 *   rewritten. (A native turn on SPEC's paths is checked where it starts: native-call.ts.)
 * - A run: Mastra's message routes (`…/send-message`, `…/queue-message`,
 *   `…/signals`) deliver a message to the run a `runId` names, in that run's
 *   thread, whoever the caller is (they check a thread's owner only when the
 *   request names the thread). With authentication on, a `runId` there is
 *   refused (400): Studio names its thread and user instead.
 * This middleware answers a request naming another owner's thread or message
 * as the thread API answers another owner's thread (404), before Mastra sees it.
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
const SAVES_MESSAGES = /^\/api\/memory(\/network)?\/save-messages$/;
/** Mastra's routes that deliver a message to a running (or the next) run of a thread. */
const MESSAGES_RUN = /^\/api\/agents\/[^/]+\/(send-message|queue-message|signals)$/;
/** Mastra's agent runs but SPEC's paths (a native turn there is checked as it starts, native-call.ts), and its signals. */
const RUNS_AGENT = /^\/api\/agents\/[^/]+\/(generate-legacy|generate\/vnext|stream-legacy|stream-until-idle|stream\/ui|stream\/vnext(\/ui)?|streamVNext|signals)$/;

type Body = Record<string, any>;

/** The messages a request has Mastra save under their ids, and the owner each names. */
function messagesSaved(savesMessages: boolean, body: Body): { messages: unknown[]; ownerNamedBy: (message: any) => unknown } {
  if (savesMessages) return { messages: Array.isArray(body.messages) ? body.messages : [], ownerNamedBy: (message) => message?.resourceId };
  const messages = [...(Array.isArray(body.messages) ? body.messages : []), ...(typeof body.signal === 'object' ? [body.signal] : [])];
  return { messages, ownerNamedBy: () => body.memory?.resource ?? body.resourceId };
}

export function threadClaimGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const { path } = c.req;
    const create = CREATES.find((candidate) => candidate.path.test(path));
    const messagesRun = MESSAGES_RUN.test(path);
    const savesMessages = SAVES_MESSAGES.test(path);
    const runsAgent = RUNS_AGENT.test(path);
    if (!create && !messagesRun && !savesMessages && !runsAgent) return next();
    const body = await jsonBodyForMastra(c);
    const caller = callerOf(c.get('requestContext'));
    if (messagesRun && caller !== undefined && body?.runId !== undefined) {
      throw invalidRequest('runId is not accepted here: name the thread (threadId) instead, which must be yours', { field: 'runId' });
    }
    // Without a valid body Mastra answers itself; a message route's only check is the one above.
    if (!body || (!create && !savesMessages && !runsAgent)) return next();
    const memory = await c.get('mastra').getAgent(COMPANION_AGENT_ID).getMemory();
    if (!memory) return next();
    // As Mastra writes a record: for the caller when authenticated (Studio names the agent's id), else the named owner.
    const ownerNamed = (named: unknown) => mastraResourceId(caller, typeof named === 'string' ? named : undefined);
    if (create) {
      const threadId = body[create.field];
      // Without an id Mastra makes a fresh one.
      if (typeof threadId !== 'string') return next();
      await findOwnedThread(memory, threadId, ownerNamed(body[create.ownerField]) ?? (create.ownsItselfWhenUnowned ? threadId : ''));
    } else {
      const saved = messagesSaved(savesMessages, body);
      await refuseOthersMessages(memory, saved.messages, (message) => ownerNamed(saved.ownerNamedBy(message)));
    }
    return next();
  };
}
