/**
 * @module Tool-call ids a model reuses. Some OpenAI-compatible servers number their calls per reply (`call_1` every
 * time) or send none, while Mastra matches a call to its result by id across the thread's remembered messages: a call
 * whose id an earlier call of the thread had got that call's result (the weather of another place), silently. A call
 * whose id the prompt (the remembered conversation) or this reply already holds gets a fresh one; every other id,
 * OpenAI's among them, is left as the model wrote it.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';

export const uniqueToolCallIds: LanguageModelMiddleware = {
  wrapGenerate: async ({ doGenerate, params }) => {
    const ids = new ToolCallIds(params.prompt);
    const result = await doGenerate();
    const content = result.content.map((part) => (part.type === 'tool-call' ? { ...part, toolCallId: ids.finish(part.toolCallId) } : part));
    return { ...result, content };
  },
  wrapStream: async ({ doStream, params }) => {
    const ids = new ToolCallIds(params.prompt);
    const { stream, ...rest } = await doStream();
    const renamed = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        controller.enqueue(renamedPart(part, ids));
      },
    });
    return { ...rest, stream: stream.pipeThrough(renamed) };
  },
};

function renamedPart(part: LanguageModelV4StreamPart, ids: ToolCallIds): LanguageModelV4StreamPart {
  switch (part.type) {
    case 'tool-input-start':
      return { ...part, id: ids.start(part.id) };
    case 'tool-input-delta':
    case 'tool-input-end':
      return { ...part, id: ids.current(part.id) };
    case 'tool-call':
      return { ...part, toolCallId: ids.finish(part.toolCallId) };
    default:
      return part;
  }
}

/** The ids of one model call's tool calls: a call's input parts and the call itself keep the id its start got. */
class ToolCallIds {
  /** Ids the conversation already holds, and those this reply has given. */
  readonly #taken: Set<string>;
  /** The id each call under way (its input streaming) goes by, by the id the model wrote. */
  readonly #open = new Map<string, string>();

  constructor(prompt: LanguageModelV4Prompt) {
    this.#taken = new Set(prompt.flatMap((message) => (typeof message.content === 'string' ? [] : message.content.flatMap(toolCallIdOf))));
  }

  start(written: string): string {
    const id = this.#taken.has(written) || !written ? `${written || 'call'}_${randomUUID().slice(0, 8)}` : written;
    this.#taken.add(id);
    this.#open.set(written, id);
    return id;
  }

  current(written: string): string {
    return this.#open.get(written) ?? written;
  }

  /** The complete call: the id its input streamed under, else (a call sent whole) a new one. */
  finish(written: string): string {
    const id = this.#open.get(written) ?? this.start(written);
    this.#open.delete(written);
    return id;
  }
}

function toolCallIdOf(part: { type: string; toolCallId?: string }): string[] {
  return (part.type === 'tool-call' || part.type === 'tool-result') && part.toolCallId ? [part.toolCallId] : [];
}
