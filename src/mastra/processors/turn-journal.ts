/**
 * @module What a stored turn leaves behind when it does not finish. Stock
 * memory writes a turn once, at its end: a crash mid-reply loses the user's
 * message, and a failed turn leaves an assistant message holding only an
 * error part (which also echoes the upstream's error text). This processor
 * sits in memory's own processor lists and writes the turn as it happens:
 * - input: the turn's new messages are stored before the model is called;
 * - stream: the reply so far is stored as a draft, at most once per
 *   `draftIntervalMs`, marked `interrupted` (a quick reply writes no draft);
 * - result: a finished reply replaces the draft (same message id, stored by
 *   memory's MessageHistory right after this processor); a failed or aborted
 *   one keeps what was streamed, marked `interrupted`, without error parts,
 *   and an assistant message with nothing left in it is not stored at all.
 *   A thread deleted while the turn ran keeps nothing of it (MessageHistory
 *   would otherwise create the thread anew around the turn's messages).
 */
import type { MastraDBMessage, MastraMemory } from '@mastra/core/memory';
import { parseMemoryRequestContext } from '@mastra/core/memory';
import { INTERRUPTED_KEY } from '../../contract/thread.ts';
import { markRunStoring } from '../../threads/turn-thread.ts';
import type {
  ProcessInputArgs,
  ProcessOutputResultArgs,
  ProcessOutputStreamArgs,
  Processor,
} from '@mastra/core/processors';

/**
 * Finish reasons of a turn that did not end as the model meant it to. A run that ends on its tool calls never
 * got the model's answer to them: it was stopped while a tool ran (its client left, a time limit), or ran out of steps.
 */
const FAILED_FINISH_REASONS = new Set(['error', 'aborted', 'tool-calls']);

/** What one turn's journal keeps between chunks (Mastra's per-request processor state). */
interface JournalState {
  /** The thread the turn's input was stored in: it existed when the turn began. */
  inputThreadId?: string;
  threadId?: string;
  resourceId?: string;
  /** The reply's message id, from the first step: drafts use it so the finished reply overwrites them. */
  draftId?: string;
  /** Everything the model said so far in this turn. */
  text?: string;
  /** The text of the latest step: when that step failed, its text is missing from Mastra's response message. */
  stepText?: string;
  draftTimer?: NodeJS.Timeout;
  /** Draft writes, one after another; awaited before the turn's final messages are stored. */
  writes?: Promise<void>;
  closed?: boolean;
}

type TextPart = { type: 'text'; text: string };

type JournalMemory = Pick<MastraMemory, 'saveMessages' | 'deleteMessages' | 'getThreadById'>;

export class TurnJournal implements Processor<'turn-journal'> {
  readonly id = 'turn-journal';
  readonly #memory: JournalMemory;
  readonly #draftIntervalMs: number;

  constructor(memory: JournalMemory, options: { draftIntervalMs: number }) {
    this.#memory = memory;
    this.#draftIntervalMs = options.draftIntervalMs;
  }

  /** Runs after memory has loaded the history, so only this turn's messages are written. */
  async processInput({ messageList, requestContext, state }: ProcessInputArgs) {
    const memoryContext = parseMemoryRequestContext(requestContext);
    if (memoryContext?.memoryConfig?.readOnly) return messageList;
    const threadId = memoryContext?.thread?.id;
    // A thread Mastra has yet to create (a native client's first turn) is written whole at the end, as before.
    if (!threadId || !(await this.#memory.getThreadById({ threadId }))) return messageList;
    (state as JournalState).inputThreadId = threadId;
    const input = messageList.get.input.db().filter((message) => message.role !== 'system');
    if (input.length > 0) await this.#memory.saveMessages({ messages: input });
    return messageList;
  }

  async processOutputStream({ part, state, requestContext }: ProcessOutputStreamArgs) {
    const journal = state as JournalState;
    if (part.type === 'step-start') {
      journal.draftId ??= (part.payload as { messageId?: string }).messageId;
      journal.stepText = '';
      const memoryContext = parseMemoryRequestContext(requestContext);
      // A read-only turn gets no thread here, so it writes no drafts.
      journal.threadId = memoryContext?.memoryConfig?.readOnly ? undefined : memoryContext?.thread?.id;
      journal.resourceId = memoryContext?.resourceId;
    } else if (part.type === 'text-delta') {
      const { text } = part.payload as { text: string };
      journal.text = (journal.text ?? '') + text;
      journal.stepText = (journal.stepText ?? '') + text;
      this.#scheduleDraft(journal);
    }
    return part;
  }

  /** Runs before memory's MessageHistory, which stores the response messages as this leaves them. */
  async processOutputResult({ messageList, result, state, requestContext }: ProcessOutputResultArgs) {
    const journal = state as JournalState;
    journal.closed = true;
    // From here the run stores its result: a save that fails now is its last (turn-thread.ts, `runStored`).
    markRunStoring();
    clearTimeout(journal.draftTimer);
    await journal.writes;
    if (parseMemoryRequestContext(requestContext)?.memoryConfig?.readOnly) return messageList;
    if (await this.#threadDeletedDuringTurn(journal)) {
      messageList.removeByIds([...messageList.get.input.db(), ...messageList.get.response.db()].map((message) => message.id));
      // A draft written after the deletion is the one row of the turn left in the store.
      if (journal.draftId) await this.#memory.deleteMessages([journal.draftId]);
      return messageList;
    }

    const response = messageList.get.response.db().filter((message) => message.role === 'assistant');
    if (FAILED_FINISH_REASONS.has(result.finishReason)) {
      const removed = markInterrupted(response, journal.stepText ?? '');
      if (removed.length > 0) messageList.removeByIds(removed);
    }
    const kept = new Set(messageList.get.response.db().map((message) => message.id));
    const stale = [journal.draftId, ...response.map((message) => message.id)].filter(
      (id): id is string => id !== undefined && !kept.has(id),
    );
    if (stale.length > 0) await this.#memory.deleteMessages([...new Set(stale)]);
    return messageList;
  }

  /**
   * For Mastra's own runs (Studio's chat under `npm run dev`), which hold no thread lock, so their thread can go
   * while they run. The service's own turns read their thread as they opened it (turn-thread.ts): a deletion waits
   * for their lock, and a stopped turn that let its thread go has its late writes dropped by the store
   * (deletion-after-writes.ts).
   */
  async #threadDeletedDuringTurn(journal: JournalState) {
    return journal.inputThreadId !== undefined && !(await this.#memory.getThreadById({ threadId: journal.inputThreadId }));
  }

  #scheduleDraft(journal: JournalState) {
    if (journal.draftTimer || journal.closed || !journal.draftId || !journal.threadId) return;
    journal.draftTimer = setTimeout(() => {
      journal.draftTimer = undefined;
      if (journal.closed) return;
      const draft = draftMessage(journal);
      journal.writes = (journal.writes ?? Promise.resolve()).then(() =>
        this.#memory.saveMessages({ messages: [draft] }).then(
          () => {},
          () => {}, // A lost draft only weakens crash insurance; the turn itself goes on.
        ),
      );
    }, this.#draftIntervalMs);
    journal.draftTimer.unref();
  }
}

function draftMessage(journal: JournalState): MastraDBMessage {
  return {
    id: journal.draftId!,
    role: 'assistant',
    threadId: journal.threadId,
    resourceId: journal.resourceId,
    createdAt: new Date(),
    content: { format: 2, parts: [{ type: 'text', text: journal.text ?? '' }], metadata: { [INTERRUPTED_KEY]: true } },
  };
}

/**
 * A failed turn's reply keeps what it said, marked interrupted, as one message, as a finished turn's is
 * (Mastra leaves a step that ended in tool calls in a message of its own): error parts go (the error is the
 * response's, not the conversation's), the text of the step that broke off is put back, and the ids of the
 * messages merged away, or of a reply left empty, are returned.
 */
function markInterrupted(response: MastraDBMessage[], stepText: string): string[] {
  const [reply, ...mergedAway] = response;
  if (!reply) return [];
  reply.content.parts = response.flatMap((message) => message.content.parts).filter((part) => part.type !== 'error');
  const invocations = response.flatMap((message) => message.content.toolInvocations ?? []);
  if (invocations.length > 0) reply.content.toolInvocations = invocations;
  const lastText = reply.content.parts.findLast((part): part is TextPart => part.type === 'text');
  if (stepText && lastText?.text !== stepText) reply.content.parts.push({ type: 'text', text: stepText });
  const removed = mergedAway.map((message) => message.id);
  if (reply.content.parts.every((part) => part.type === 'step-start')) return [reply.id, ...removed];
  reply.content.metadata = { ...reply.content.metadata, [INTERRUPTED_KEY]: true };
  return removed;
}
