/**
 * @module The floor: a bare Hono route calling the AI SDK directly, with the companion's
 * instructions and tools and no memory. What a turn costs without any framework around it.
 *
 *   POST /generate {messages} → {text, finishReason, usage}
 *   POST /stream   {messages} → SSE `data: {"type":"text","text":…}` per delta, then `{"type":"run-finish"}`
 */
import { createOpenAI } from '@ai-sdk/openai';
import { serve } from '@hono/node-server';
import { generateText, isStepCount, streamText, tool, type FlexibleSchema, type ModelMessage, type ToolSet } from 'ai';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { companionTools, INSTRUCTIONS, MODEL_ID, readServerEnv } from '../agent.ts';

const env = readServerEnv(process.env);
const model = createOpenAI({ apiKey: 'x', baseURL: env.OPENAI_BASE_URL }).chat(MODEL_ID);

/** The same Mastra tools (description, input schema, execute), called through the AI SDK. */
const tools: ToolSet = Object.fromEntries(
  Object.entries(companionTools(env)).map(([name, mastraTool]) => [
    name,
    tool({
      description: mastraTool.description,
      inputSchema: mastraTool.inputSchema as FlexibleSchema<Record<string, unknown>>,
      execute: async (input, { abortSignal }): Promise<unknown> => mastraTool.execute!(input as never, { abortSignal } as never),
    }),
  ]),
);

const turn = (messages: ModelMessage[], abortSignal: AbortSignal) => ({
  model,
  instructions: INSTRUCTIONS,
  messages,
  tools,
  stopWhen: isStepCount(5),
  abortSignal,
});

const app = new Hono();

app.post('/generate', async (c) => {
  const { messages } = await c.req.json();
  const result = await generateText(turn(messages, c.req.raw.signal));
  return c.json({ text: result.text, finishReason: result.finishReason, usage: result.usage });
});

app.post('/stream', async (c) => {
  const { messages } = await c.req.json();
  const abort = new AbortController();
  const result = streamText(turn(messages, abort.signal));
  return streamSSE(c, async (sse) => {
    sse.onAbort(() => abort.abort());
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') await sse.writeSSE({ data: JSON.stringify({ type: 'text', text: part.text }) });
      else if (part.type === 'error') await sse.writeSSE({ data: JSON.stringify({ type: 'error', error: String(part.error) }) });
    }
    await sse.writeSSE({ data: JSON.stringify({ type: 'run-finish' }) });
  });
});

serve({ fetch: app.fetch, hostname: env.HOST, port: Number(env.PORT) });
