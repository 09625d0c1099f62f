/**
 * @module Mastra tracing, for Studio's Traces page: every turn's spans (agent
 * run, model calls, tool calls) with their timings, exported by Mastra's storage
 * exporter into a DuckDB file on this machine. DuckDB because Studio lists
 * traces with Mastra's advanced trace query, which this embedded store answers
 * and LibSQL does not. No other exporter is configured: the prompts and replies
 * in spans never leave the machine. A trace store that cannot be opened (another
 * process holds the file) costs the traces, never a turn.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IMastraLogger } from '@mastra/core/logger';
import type { DuckDBStore } from '@mastra/duckdb';
import type { Observability } from '@mastra/observability';

export interface TracingOptions {
  /** The DuckDB file; its folder is created. */
  storePath: string;
  logger: IMastraLogger;
}

export interface Tracing {
  observability: Observability;
  /** The observability storage domain the exporter writes to and Studio reads from. */
  store: DuckDBStore['observability'];
  close(): Promise<void>;
}

const TRACE_SERVICE_NAME = 'companion-agent';

/**
 * Loaded only with tracing on: DuckDB's engine (a native library, 10 MB resident) and Mastra's observability would
 * otherwise be 13 MB of every process's memory, and 40 ms of its start, in production, where tracing is off.
 */
export async function createTracing({ storePath, logger }: TracingOptions): Promise<Tracing> {
  const [{ DuckDBStore }, { MastraStorageExporter, Observability }] = await Promise.all([import('@mastra/duckdb'), import('@mastra/observability')]);
  // A folder that cannot be made is the store's failure to open, below: it costs the traces only.
  try {
    mkdirSync(dirname(storePath), { recursive: true, mode: 0o700 });
  } catch {}
  // Small and single-threaded: a debugging aid must not compete with the turns it records.
  const traces = new DuckDBStore({ id: 'traces', path: storePath, memoryLimit: '256MB', threads: 1 });
  // Created once, here. Mastra (at start-up and on a turn's first storage call) and the exporter each
  // call init() too: concurrent DuckDB DDL conflicts, and a failure there would fail the turn. So every
  // init() is this one, which never throws: a trace store that cannot be opened costs only traces.
  const store = traces.observability;
  const ready = store.init().catch((error: Error) => {
    logger.warn('Tracing is unavailable: the trace store could not be opened; turns are not affected', {
      storePath,
      error: error.message,
    });
  });
  store.init = () => ready;
  const observability = new Observability({
    configs: {
      default: {
        serviceName: TRACE_SERVICE_NAME,
        exporters: [new MastraStorageExporter()],
        // Mastra would also copy its log lines here, past the log's redaction (the model server's message, which
        // can quote a key; at debug the conversation): they go to stdout only, redacted.
        logging: { enabled: false },
      },
    },
  });
  return {
    observability,
    store,
    async close() {
      await observability.shutdown();
      await traces.close();
    },
  };
}
