/**
 * @module The SPEC agent routes' shared way in: body, thread, personality, agent input.
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MASTRA_RESOURCE_ID_KEY, RequestContext } from '@mastra/core/request-context';
import { agentRequest } from '../contract/agent-request.ts';
import { requestedPersonality, titleFrom, toAgentMessages } from '../contract/agent-input.ts';
import { bodyTooLarge, fromZodError, invalidRequest, MODEL_NOT_CONFIGURED } from '../contract/errors.ts';
import { COMPANION_AGENT_ID, PERSONALITY_KEY } from '../mastra/agents/companion-agent.ts';
import { STATELESS_KEY } from '../mastra/memory.ts';
import { openConversation } from '../threads/conversation.ts';
import { callerOf, effectiveResourceId } from '../security/caller.ts';
import { lockThread } from '../threads/thread-lock.ts';
import './context.ts';

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body as JSON within the size limit: too large → 413, not JSON → 400. */
async function readJsonBody(c: Context): Promise<unknown> {
  let text = '';
  await bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw bodyTooLarge(MAX_BODY_BYTES);
    },
  })(c, async () => {
    text = await c.req.text();
  });
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest('Request body must be valid JSON.');
  }
}

/**
 * The one way into the agent for both SPEC routes: parse the body against the
 * SPEC schema, wait for the thread's previous turn, open the conversation
 * (thread, owner, personality), and build the agent's input. The handlers only
 * differ in how they answer.
 */
export async function prepareAgentCall(c: Context, options: { modelConfigured: boolean }) {
  const parsed = agentRequest.safeParse(await readJsonBody(c));
  if (!parsed.success) throw fromZodError(parsed.error);
  const request = parsed.data;
  if (!options.modelConfigured) throw MODEL_NOT_CONFIGURED;

  const agent = c.get('mastra').getAgent(COMPANION_AGENT_ID);
  // With auth on, the token's subject owns the conversation: a thread id alone continues the caller's thread.
  const caller = callerOf(c.get('requestContext'));
  const resourceId = effectiveResourceId(caller, request.resourceId);
  const threadOwner = request.threadId || request.resourceId ? resourceId : undefined;
  const release = request.threadId ? await lockThread(request.threadId) : () => {};
  const conversation = await openConversation(await agent.getMemory(), {
    threadId: request.threadId,
    resourceId: threadOwner,
    personality: requestedPersonality(request),
    tags: request.runtimeContext?.metadata?.tags,
    title: titleFrom(request.messages),
  }).catch((error: unknown) => {
    release();
    throw error;
  });

  c.set('conversation', { threadId: conversation.thread?.threadId, resourceId: conversation.thread?.resourceId ?? caller });
  const requestContext = new RequestContext();
  if (caller) requestContext.set(MASTRA_RESOURCE_ID_KEY, caller);
  requestContext.set(PERSONALITY_KEY, conversation.personality);
  const userId = request.runtimeContext?.metadata?.userId;
  if (userId) requestContext.set('userId', userId);
  const thread = conversation.thread;
  if (!thread) requestContext.set(STATELESS_KEY, true);

  return {
    agent,
    messages: toAgentMessages(request.messages),
    options: {
      requestContext,
      memory: thread ? { thread: thread.threadId, resource: thread.resourceId } : undefined,
      // With tracing on, the turn's trace carries the request's x-trace-id: a log line leads to its trace.
      tracingOptions: { metadata: { requestTraceId: c.get('traceId') } },
    },
    ids: { threadId: thread?.threadId, resourceId: thread?.resourceId },
    /** Lets the thread's next turn start; call it once this turn's messages are stored. */
    release,
  };
}
