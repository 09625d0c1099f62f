/**
 * @module The SPEC agent routes' shared way in: body, thread, personality, agent input.
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { RequestContext } from '@mastra/core/request-context';
import { agentRequest } from '../contract/agent-request.ts';
import { requestedPersonality, titleFrom, toAgentMessages } from '../contract/agent-input.ts';
import { bodyTooLarge, fromZodError, invalidRequest, MODEL_NOT_CONFIGURED } from '../contract/errors.ts';
import { COMPANION_AGENT_ID, PERSONALITY_KEY } from '../mastra/agents/companion-agent.ts';
import { STATELESS_KEY } from '../mastra/memory.ts';
import { openConversation } from '../threads/conversation.ts';
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
  const release = request.threadId ? await lockThread(request.threadId) : () => {};
  const conversation = await openConversation(await agent.getMemory(), {
    threadId: request.threadId,
    resourceId: request.resourceId,
    personality: requestedPersonality(request),
    tags: request.runtimeContext?.metadata?.tags,
    title: titleFrom(request.messages),
  }).catch((error: unknown) => {
    release();
    throw error;
  });

  const requestContext = new RequestContext();
  requestContext.set(PERSONALITY_KEY, conversation.personality);
  const userId = request.runtimeContext?.metadata?.userId;
  if (userId) requestContext.set('userId', userId);
  const ids = conversation.ids;
  if (!ids) requestContext.set(STATELESS_KEY, true);

  return {
    agent,
    messages: toAgentMessages(request.messages),
    options: {
      requestContext,
      memory: ids ? { thread: ids.threadId, resource: ids.resourceId } : undefined,
    },
    /** The stored conversation's ids; `undefined` for a stateless turn. */
    conversation: ids,
    /** Lets the thread's next turn start; call it once this turn's messages are stored. */
    release,
  };
}
