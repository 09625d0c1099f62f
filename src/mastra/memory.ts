/**
 * @module Conversation memory: a bounded window of recent messages and
 * per-user working memory on the service's store; stateless turns skip it.
 */
import { Memory } from '@mastra/memory';
import type { MastraCompositeStore } from '@mastra/core/storage';
import type { RequestContext } from '@mastra/core/request-context';
import type { InputProcessorOrWorkflow, OutputProcessorOrWorkflow } from '@mastra/core/processors';
import type { Config } from '../../mastra.config.ts';
import { deleteThreadsAfterTheirWrites } from '../threads/deletion-after-writes.ts';
import { serveTurnScope } from '../threads/turn-thread.ts';
import { RunStored } from './processors/run-stored.ts';
import { TurnJournal } from './processors/turn-journal.ts';
import { WORKING_MEMORY_TEMPLATE } from './working-memory-template.ts';

/**
 * Set by the SPEC routes on a turn without threadId/resourceId, and by the native
 * agent routes on a turn without `memory` (src/routes/native-call.ts). Stock Memory
 * prepares its processors (and so touches the store) on every turn; a
 * stateless turn skips them, so it stays cheap and still works when the store
 * is unreachable.
 */
export const STATELESS_KEY = 'companion.stateless';

/** How often the reply of a running turn is written as a draft, so a crash loses at most this much of it. */
const DRAFT_INTERVAL_MS = 1_000;

/** The most working memory holds, in characters: what one model reply writes, and every later turn's prompt carries. */
const MAX_WORKING_MEMORY_CHARACTERS = 16_000;

class CompanionMemory extends Memory {
  /** Writes each stored turn as it happens: see src/mastra/processors/turn-journal.ts. */
  readonly #journal = new TurnJournal(this, { draftIntervalMs: DRAFT_INTERVAL_MS });
  readonly #runStored = new RunStored();

  // The journal stores the turn's input after memory has loaded the history ...
  override async getInputProcessors(configured?: InputProcessorOrWorkflow[], context?: RequestContext) {
    return context?.get(STATELESS_KEY) ? [] : [...(await super.getInputProcessors(configured, context)), this.#journal];
  }

  // ... and settles a failed reply before memory's MessageHistory stores it; the turn hears when it has.
  override async getOutputProcessors(configured?: OutputProcessorOrWorkflow[], context?: RequestContext) {
    return context?.get(STATELESS_KEY) ? [] : [this.#journal, ...(await super.getOutputProcessors(configured, context)), this.#runStored];
  }

  /**
   * U+0000 ends a string in SQLite's C API (the text was stored cut short at it, and the tool said it succeeded) and
   * PostgreSQL refuses it: it is dropped. And the text goes into every later turn's prompt: past a bound the write is
   * refused, and the tool tells the model why.
   */
  override async updateWorkingMemory(update: Parameters<Memory['updateWorkingMemory']>[0]) {
    const workingMemory = update.workingMemory.replaceAll('\u0000', '');
    if (workingMemory.length > MAX_WORKING_MEMORY_CHARACTERS) {
      throw new Error(`Working memory holds at most ${MAX_WORKING_MEMORY_CHARACTERS} characters; keep what matters most and write it again.`);
    }
    return super.updateWorkingMemory({ ...update, workingMemory });
  }

  /**
   * Stock memory builds its working-memory tool anew on every turn, and so the agent converts
   * that tool's schema on every turn too. With the memory's own settings the tools never
   * change: they are built once.
   */
  #defaultTools?: ReturnType<Memory['listTools']>;
  override listTools(config?: Parameters<Memory['listTools']>[0]) {
    if (config) return super.listTools(config);
    return (this.#defaultTools ??= super.listTools());
  }
}

/** Conversation memory on the service's store; `undefined` when storage is switched off. */
export function createMemory(storage: MastraCompositeStore | undefined, options: Config['memory']) {
  if (!storage) return undefined;
  if (storage.stores?.memory) {
    // A stored turn reads its thread once (src/threads/turn-thread.ts); a deleted thread gets no late message back.
    serveTurnScope(storage.stores.memory);
    deleteThreadsAfterTheirWrites(storage.stores.memory);
  }
  return new CompanionMemory({
    storage,
    options: {
      // A bounded window keeps a long thread as cheap per turn as a short one.
      lastMessages: options.lastMessages,
      semanticRecall: false,
      // What the user tells the companion about themselves follows them into every thread.
      workingMemory: { enabled: true, scope: 'resource', template: WORKING_MEMORY_TEMPLATE },
    },
  });
}
