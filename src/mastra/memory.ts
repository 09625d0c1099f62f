/**
 * @module Conversation memory: a bounded window of recent messages and
 * per-user working memory on the service's store; stateless turns skip it.
 */
import { Memory } from '@mastra/memory';
import type { MastraCompositeStore } from '@mastra/core/storage';
import type { RequestContext } from '@mastra/core/request-context';
import type { InputProcessorOrWorkflow, OutputProcessorOrWorkflow } from '@mastra/core/processors';
import type { Config } from '../../mastra.config.ts';

/**
 * Set by the SPEC routes on a turn without threadId/resourceId. Stock Memory
 * prepares its processors (and so touches the store) on every turn; a
 * stateless turn skips them, so it stays cheap and still works when the store
 * is unreachable.
 */
export const STATELESS_KEY = 'companion.stateless';

class CompanionMemory extends Memory {
  override async getInputProcessors(configured?: InputProcessorOrWorkflow[], context?: RequestContext) {
    return context?.get(STATELESS_KEY) ? [] : super.getInputProcessors(configured, context);
  }

  override async getOutputProcessors(configured?: OutputProcessorOrWorkflow[], context?: RequestContext) {
    return context?.get(STATELESS_KEY) ? [] : super.getOutputProcessors(configured, context);
  }
}

/** Conversation memory on the service's store; `undefined` when storage is switched off. */
export function createMemory(storage: MastraCompositeStore | undefined, options: Config['memory']) {
  if (!storage) return undefined;
  return new CompanionMemory({
    storage,
    options: {
      // A bounded window keeps a long thread as cheap per turn as a short one.
      lastMessages: options.lastMessages,
      semanticRecall: false,
      // What the user tells the companion about themselves follows them into every thread.
      workingMemory: { enabled: true, scope: 'resource' },
    },
  });
}
