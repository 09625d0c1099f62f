/**
 * @module Tool-call ids a model reuses. Some OpenAI-compatible servers number their calls per reply (`call_1` every
 * time) or send none, while Mastra matches a call to its result by id across the thread's remembered messages: a call
 * whose id an earlier call of the thread had got that call's result (the weather of another place), silently. A call
 * whose id the prompt (the remembered conversation) or this reply already holds gets a fresh one; every other id,
 * OpenAI's among them, is left as the model wrote it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';

export const uniqueToolCallIds: LanguageModelMiddleware = {
  wrapGenerate: async ({ doGenerate, params }) => {
    const ids = new ToolCallIds(params.prompt);
    const result = await doGenerate();
    const content = result.content.map((part) => (part.type === 'tool-call' && !part.providerExecuted ? { ...part, toolCallId: ids.finish(part.toolCallId) } : part));
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

/** The parts of a call the service runs; a provider's own (web search) are its to pair, and keep their ids. */
function renamedPart(part: LanguageModelV4StreamPart, ids: ToolCallIds): LanguageModelV4StreamPart {
  if ('providerExecuted' in part && part.providerExecuted) return part;
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

/**
 * The ids of one model call's tool calls: a call's input parts and the call itself keep the id its start got. Calls
 * stream one after another (the providers' stream parsers see to it), so one call under way per written id.
 */
class ToolCallIds {
  /** Ids the conversation already holds, and those this reply has given. */
  readonly #taken: Set<string>;
  /** The id each call under way (its input streaming) goes by, by the id the model wrote. */
  readonly #open = new Map<string, string>();

  constructor(prompt: LanguageModelV4Prompt) {
    this.#taken = new Set(prompt.flatMap((message) => (typeof message.content === 'string' ? [] : message.content.flatMap(toolCallIdOf))));
  }

  start(written: string): string {
    const id = this.#taken.has(written) || !written ? freshId(written) : written;
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

/** Mistral's API (and servers built on mistral-common) take back only ids of exactly 9 letters or digits. */
const NINE_ALPHANUMERICS = /^[A-Za-z0-9]{9}$/;

/** A new id in the form of the one written: 9 letters or digits for 9 letters or digits, else `<id>_<8 hex>`. */
function freshId(written: string): string {
  if (NINE_ALPHANUMERICS.test(written)) return randomBytes(9).toString('base64url').replace(/[-_]/g, '0').slice(0, 9);
  return `${written || 'call'}_${randomUUID().slice(0, 8)}`;
}

function toolCallIdOf(part: { type: string; toolCallId?: string }): string[] {
  return (part.type === 'tool-call' || part.type === 'tool-result') && part.toolCallId ? [part.toolCallId] : [];
}
