/**
 * @module Throughput runs with autocannon: `connections` keep-alive connections, each with its
 * own thread (and one of a few resources), send the same user turn back to back. A run makes an
 * exact number of requests, so every request it counts has completed and the server's CPU time
 * (read from /proc before and after) divides by exactly that number.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { readStreamEvent, sampleRss, type Route, type ServerUnderTest, type ThreadIds } from './servers.ts';

export interface LoadResult {
  requests: number;
  /** non-2xx answers, 2xx answers without a whole reply (a stream's error event), socket errors / timeouts */
  errors: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRequest: number;
  peakRssMb: number;
}

export interface LoadRun {
  route: Route;
  connections: number;
  /** exact number of requests; at least one per connection */
  requests: number;
}

/** Users the connections' threads belong to: several threads per user, as real traffic has. */
const RESOURCES = 8;

export function threadFor(connection: number, runTag: string): ThreadIds {
  return { threadId: `${runTag}-${connection}-${randomUUID()}`, resourceId: `bench-user-${connection % RESOURCES}` };
}

export async function runLoad(server: ServerUnderTest, run: LoadRun): Promise<LoadResult> {
  const rss = sampleRss(server);
  const cpuBefore = server.cpuMs();
  const fired = await fire(server, run.route, run.connections, Math.max(run.requests, MIN_REQUESTS, run.connections * 2));
  // work a server finishes after its last response (a stream's trailing writes) belongs to the run
  await sleep(SETTLE_MS);
  const cpuMs = server.cpuMs() - cpuBefore;
  const completed = fired.latencies.length + fired.errors;
  return {
    requests: completed,
    errors: fired.errors,
    reqPerSec: fired.latencies.length / fired.elapsedS,
    p50Ms: percentile(fired.latencies, 0.5),
    p99Ms: percentile(fired.latencies, 0.99),
    cpuMsPerRequest: cpuMs / Math.max(1, completed),
    peakRssMb: rss.stop(),
  };
}

/**
 * Untimed warm-up: one first request (a cold route can be slow), then a few per connection.
 * Warms the JIT and sizes the first measured run; resolves to requests per second. Counted by
 * requests, not time, so no request is cut off and finished by the server during the next run.
 */
export async function warmUp(server: ServerUnderTest, route: Route, connections: number): Promise<number> {
  const first = await fire(server, route, 1, 1);
  if (first.errors) throw new Error(`${server.name} failed its first ${route} request:\n${server.output()}`);
  const fired = await fire(server, route, connections, Math.max(16, connections * 2));
  if (fired.errors) throw new Error(`${server.name} failed ${fired.errors} ${route} requests while warming up:\n${server.output()}`);
  return fired.latencies.length / fired.elapsedS;
}

const SETTLE_MS = 150;
/** Enough responses for a p99 to mean something, even at one connection on a slow server. */
const MIN_REQUESTS = 30;

/** One autocannon run; each connection sends one body, on a thread of its own, for the whole run. */
async function fire(server: ServerUnderTest, route: Route, connections: number, amount: number) {
  const runTag = `${route}-c${connections}`;
  let nextConnection = 0;
  const latencies: number[] = [];
  let errors = 0;
  const startedAt = performance.now();
  let lastAnswerAt = startedAt;
  // without a callback autocannon returns its instance, which is also a promise of the result
  const instance = autocannon({
    url: server.url + server.path[route],
    method: 'POST',
    connections,
    amount,
    timeout: 30,
    setupClient(client) {
      const ids = threadFor(nextConnection++, runTag);
      client.setHeadersAndBody({ 'content-type': 'application/json' }, JSON.stringify(server.body('Hello, how are you today?', ids)));
    },
    // A stream that fails does so after its 200: only its body tells.
    verifyBody: (body) => holdsReply(server, route, String(body ?? '')),
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  // autocannon's own histogram keeps whole milliseconds; the raw response times are finer
  let lastWasSuccess = false;
  instance.on('response', (_client, status, _bytes, ms) => {
    lastAnswerAt = performance.now();
    lastWasSuccess = status >= 200 && status < 300;
    if (lastWasSuccess) latencies.push(ms);
    else errors++;
  });
  // Emitted right after its response's 'response' event: a success whose body held no reply is taken back.
  (instance as unknown as NodeJS.EventEmitter).on('reqMismatch', () => {
    if (!lastWasSuccess) return;
    latencies.pop();
    errors++;
  });
  instance.on('reqError', () => {
    lastAnswerAt = performance.now();
    errors++;
  });
  await instance;
  // Up to the last answer: autocannon itself resolves on its next whole-second tick, which made every rate a count
  // divided by a whole number of seconds (a 3.1 s run counted as 4 s).
  return { latencies, errors, elapsedS: (lastAnswerAt - startedAt) / 1000 };
}

/** Whether a 2xx body holds a whole reply: JSON with its text, or a stream with reply text and no error event. */
export function holdsReply(server: Pick<ServerUnderTest, 'textOf' | 'isError'>, route: Route, body: string): boolean {
  if (route === 'generate') {
    try {
      const reply = JSON.parse(body);
      return typeof reply.text === 'string' && reply.text.length > 0;
    } catch {
      return false;
    }
  }
  let text = '';
  try {
    for (const line of body.split('\n')) {
      const event = line.startsWith('data: ') ? readStreamEvent(server, line.slice('data: '.length)) : undefined;
      if (event?.failed) return false;
      text += event?.delta ?? '';
    }
  } catch {
    return false; // a frame that is not JSON
  }
  return text.length > 0;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export function median(values: number[]): number {
  return percentile(values, 0.5);
}
