/**
 * @module The three servers under test, each a child process of its own so its CPU time and
 * memory can be read from /proc: floor (bench/servers/floor.ts), peer (bench/servers/peer.ts)
 * and ours (`node src/server.ts` by default; see `oursCommand`). Each knows its routes, how a
 * turn's request body looks on its wire, and which stream event carries reply text.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../tests/fixtures/service.ts';
import type { StandIns } from './stand-in.ts';

export const SERVER_NAMES = ['floor', 'peer', 'ours'] as const;
export type ServerName = (typeof SERVER_NAMES)[number];
export type Route = 'generate' | 'stream';

/** Where a turn is stored; the floor keeps no memory and ignores it. */
export interface ThreadIds {
  threadId: string;
  resourceId: string;
}

export interface ServerUnderTest {
  name: ServerName;
  url: string;
  pid: number;
  path: Record<Route, string>;
  /** The JSON body of one user turn, as this server's users would send it. */
  body(text: string, ids: ThreadIds): unknown;
  /** The reply text a parsed stream event carries, `undefined` for any other event. */
  textOf(event: any): string | undefined;
  /** Whether a parsed stream event reports a failure. */
  isError(event: any): boolean;
  /** User + system CPU time of the process so far, ms. */
  cpuMs(): number;
  /** Resident set size now, MB. */
  rssMb(): number;
  /** The tail of the process's stdout and stderr, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

export const REPO_ROOT = join(import.meta.dirname, '..');
const AGENT_PATH = '/api/agents/companionAgent';

/** argv of ours; `node` stands for this Node binary, paths are relative to the repository root. */
export const DEFAULT_OURS_COMMAND = 'node src/server.ts';

/** V8's memory reducer GCs a server 5–10 s after its load run, inside the next one's (bench/README.md, Method). */
const MEASURED_NODE_FLAGS = ['--no-memory-reducer'];

/**
 * Splits a command line (no shell: the first word must be the server process itself, so that
 * its pid is the one measured), inserting the bench's flags and `nodeFlags` after a leading `node`.
 */
function commandArgv(command: string, nodeFlags: string[] = []): string[] {
  const [program, ...args] = command.trim().split(/\s+/);
  if (program === 'node') return [process.execPath, ...MEASURED_NODE_FLAGS, ...nodeFlags, ...args];
  if (nodeFlags.length) throw new Error(`cannot add node flags to "${command}": it does not start with node`);
  return [program!, ...args];
}

export interface StartOptions {
  standIns: StandIns;
  /** LibSQL file URL of the server's store (peer and ours). */
  databaseUrl: string;
  /** ours only: the command line (default DEFAULT_OURS_COMMAND) and extra node flags (profiling). */
  oursCommand?: string;
  nodeFlags?: string[];
  /** extra environment, e.g. a statement log's output path */
  env?: Record<string, string>;
}

const SPECS: Record<ServerName, Pick<ServerUnderTest, 'path' | 'body' | 'textOf' | 'isError'> & { argv(options: StartOptions): string[] }> = {
  floor: {
    argv: (options) => commandArgv('node bench/servers/floor.ts', options.nodeFlags),
    path: { generate: '/generate', stream: '/stream' },
    body: (text) => ({ messages: [{ role: 'user', content: text }] }),
    textOf: (event) => (event.type === 'text' ? event.text : undefined),
    isError: (event) => event.type === 'error',
  },
  peer: {
    // stock Mastra: this project's patches of Mastra count for ours only
    argv: (options) => commandArgv('node bench/servers/peer.ts', ['--import', './bench/stock/loader.ts', ...(options.nodeFlags ?? [])]),
    path: { generate: `${AGENT_PATH}/generate`, stream: `${AGENT_PATH}/stream` },
    body: (text, ids) => ({ messages: [{ role: 'user', content: text }], memory: { thread: ids.threadId, resource: ids.resourceId } }),
    textOf: (event) => (event.type === 'text-delta' ? event.payload?.text : undefined),
    isError: (event) => event.type === 'error',
  },
  ours: {
    argv: (options) => commandArgv(options.oursCommand ?? DEFAULT_OURS_COMMAND, options.nodeFlags),
    path: { generate: `${AGENT_PATH}/generate`, stream: `${AGENT_PATH}/stream` },
    body: (text, ids) => ({ messages: [{ role: 'user', content: text }], ...ids }),
    textOf: (event) => (event.type === 'text' ? event.text : undefined),
    isError: (event) => event.type === 'error',
  },
};

/** One SSE `data:` payload read as `server`'s event: the reply text it carries and whether it reports a failure; `undefined` for a terminator (`[DONE]`). */
export function readStreamEvent(server: Pick<ServerUnderTest, 'textOf' | 'isError'>, data: string): { delta?: string; failed: boolean } | undefined {
  if (data === '[DONE]') return undefined;
  const event = JSON.parse(data);
  return { delta: server.textOf(event), failed: server.isError(event) };
}

export async function startServer(name: ServerName, options: StartOptions): Promise<ServerUnderTest> {
  const spec = SPECS[name];
  const port = await freePort();
  const [program, ...args] = spec.argv(options);
  const child = spawn(program!, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      OPENAI_BASE_URL: options.standIns.baseURL,
      OPENAI_API_KEY: 'x',
      OPEN_METEO_GEOCODING_URL: options.standIns.geocodingUrl,
      OPEN_METEO_FORECAST_URL: options.standIns.forecastUrl,
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      // ours limits each client; a limit no run reaches keeps the limiter's cost in the figures
      RATE_LIMIT_PER_MINUTE: '100000',
      MASTRA_TELEMETRY_DISABLED: '1',
      ...options.env,
    },
  });
  const output = collectOutput(child);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(url, child, output);
  const pid = child.pid!;
  return {
    name,
    url,
    pid,
    ...spec,
    cpuMs: () => cpuMsOf(pid),
    rssMb: () => rssMbOf(pid),
    output,
    stop: () => stop(child),
  };
}

/** A fresh LibSQL file URL in a temporary folder of its own. */
export function tempDatabaseUrl(name: string): string {
  return `file:${join(mkdtempSync(join(tmpdir(), `bench-${name}-`)), 'store.db')}`;
}

function collectOutput(child: ChildProcess) {
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return () => tail;
}

/** Polls until the port answers HTTP at all (any status): every server's own readiness signal differs. */
async function waitUntilListening(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      await (await fetch(url, { signal: AbortSignal.timeout(1_000) })).arrayBuffer();
      return;
    } catch {
      await sleep(50);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`server did not listen within 60 s:\n${output()}`);
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: `getconf CLK_TCK` is 100 on every Linux the bench targets

/** utime + stime (fields 14 and 15 of /proc/PID/stat, in clock ticks), all threads of the process. */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command name (field 2) may contain spaces; fields are counted after its closing parenthesis
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Samples a server's RSS every 50 ms until stopped; resolves to the peak, MB. */
export function sampleRss(server: ServerUnderTest) {
  let peak = server.rssMb();
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, server.rssMb());
    } catch {
      // the process is gone; the failing phase reports it
    }
  }, 50);
  return {
    stop(): number {
      clearInterval(timer);
      return peak;
    },
  };
}
