/**
 * @module Readiness: each dependency reports whether it can work right now.
 * Checks run in parallel with a time limit, so one hung dependency makes the
 * answer "unavailable" promptly instead of hanging the probe.
 */
import type { MastraCompositeStore } from '@mastra/core/storage';
import type { Config } from '../../mastra.config.ts';
import type { DependencyCheck, Readiness } from '../contract/readiness.ts';
import { databaseFileProblem } from '../mastra/storage.ts';

export type ReadinessCheck = () => Promise<DependencyCheck>;

const CHECK_TIMEOUT_MS = 3000;

export async function checkReadiness(checks: Record<string, ReadinessCheck>): Promise<Readiness> {
  const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await withinLimit(check)] as const));
  const results = Object.fromEntries(entries);
  return { status: entries.every(([, result]) => result.ok) ? 'ready' : 'unavailable', checks: results };
}

async function withinLimit(check: ReadinessCheck): Promise<DependencyCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DependencyCheck>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${CHECK_TIMEOUT_MS} ms` }), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().catch(() => ({ ok: false, detail: 'the check failed' })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The conversation store answers a real query (a thread lookup), timed, on the database file it opened (a LibSQL file). */
export function storeCheck(storage: MastraCompositeStore | undefined): ReadinessCheck {
  return async () => {
    if (!storage) return { ok: true, detail: 'memory is switched off (DATABASE_URL empty or none): stateless turns only' };
    const started = performance.now();
    try {
      await storage.init();
      const memory = await storage.getStore('memory');
      await memory?.getThreadById({ threadId: 'readiness-probe' });
      const fileProblem = databaseFileProblem(storage);
      if (fileProblem) return { ok: false, detail: fileProblem };
      return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    } catch {
      // The driver's message can carry the connection string: only say what failed.
      return { ok: false, detail: 'the conversation store did not answer a query' };
    }
  };
}

export function modelCheck(model: Config['model']): ReadinessCheck {
  return async () =>
    model
      ? { ok: true, detail: `${model.id} via the ${model.api === 'chat' ? 'Chat Completions' : 'Responses'} API` }
      : { ok: false, detail: 'no model configured: set OPENAI_API_KEY or OPENAI_BASE_URL' };
}
