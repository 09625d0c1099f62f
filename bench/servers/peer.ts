/**
 * @module The peer: stock Mastra, written the way a Mastra user writes it. One Agent with the
 * companion's instructions and tools, `@mastra/memory` on a LibSQLStore, registered with
 * `new Mastra({agents})` and served by `createNodeServer` on Mastra's native agent routes:
 *
 *   POST /api/agents/companionAgent/generate|stream {messages, memory: {thread, resource}}
 */
import { createOpenAI } from '@ai-sdk/openai';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createNodeServer } from '@mastra/deployer/server';
import { LibSQLStore } from '@mastra/libsql';
import { PinoLogger } from '@mastra/loggers';
import { Memory } from '@mastra/memory';
import { AGENT_ID, companionTools, INSTRUCTIONS, MEMORY_OPTIONS, MODEL_ID, readServerEnv } from '../agent.ts';
import { STOCK_ROOT } from '../stock/stock-copies.ts';

// A peer on this project's patched Mastra would compare ours with itself: refuse to run rather than report that.
if (!import.meta.resolve('@mastra/core/agent').includes(STOCK_ROOT)) throw new Error('the peer must run on stock Mastra: start it with --import ./bench/stock/loader.ts');

const env = readServerEnv(process.env);

const companionAgent = new Agent({
  id: AGENT_ID,
  name: 'Companion Agent',
  instructions: INSTRUCTIONS,
  model: createOpenAI({ apiKey: 'x', baseURL: env.OPENAI_BASE_URL }).chat(MODEL_ID) as any,
  tools: companionTools(env),
  memory: new Memory({
    storage: new LibSQLStore({ id: 'peer-store', url: env.DATABASE_URL }),
    options: MEMORY_OPTIONS,
  }),
});

const mastra = new Mastra({
  agents: { companionAgent },
  // the same log level as ours runs with in the bench
  logger: new PinoLogger({ name: 'peer', level: 'warn' }),
  server: { host: env.HOST, port: Number(env.PORT) },
});

await createNodeServer(mastra, { tools: {}, studio: false });
