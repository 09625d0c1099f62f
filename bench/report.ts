/**
 * @module Turns one suite run into one markdown table (a row per figure, a column per server,
 * then the ratios ours/peer and ours/floor) and writes it, with how it was measured and how to
 * read it, to bench/README.md.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './load.ts';
import type { ServerName } from './servers.ts';
import type { ManyStreamsResult } from './sse-timing.ts';
import { THREAD_SIZES, type ThreadSize } from './long-thread.ts';

type PerServer<T> = Partial<Record<ServerName, T>>;

export interface SuiteSettings {
  oursCommand: string;
  repeats: number;
  secondsPerRun: number;
  connections: readonly number[];
  loadPace: string;
  timingSamples: number;
  timingPace: string;
  threadTurns: number;
  slowStreams: number;
  slowPace: string;
}

export interface SuiteResults {
  settings: SuiteSettings;
  startedAt: Date;
  elapsedS: number;
  /** 1-minute load average at the start and at the end: how busy the machine was besides the bench */
  loadAverage: { start: number; end: number };
  /** medians over the repeats, keyed `generate c=16` */
  load: Map<string, PerServer<LoadResult>>;
  firstText: PerServer<{ p50: number; p99: number }>;
  lastTextToEnd: PerServer<{ p50: number; p99: number }>;
  /** timing streams that failed (left out of the timings) */
  failedTimingStreams: PerServer<number>;
  rss: PerServer<{ bootMb: number; loadPeakMb: number }>;
  threadCost: PerServer<Record<ThreadSize, number>>;
  manyStreams: PerServer<ManyStreamsResult>;
}

interface Row {
  metric: string;
  values: PerServer<number>;
  digits: number;
  /** whether ours/peer and ours/floor mean anything for this row */
  ratios: boolean;
}

const COLUMNS: ServerName[] = ['floor', 'peer', 'ours'];

export function rowsOf(results: SuiteResults): Row[] {
  const rows: Row[] = [];
  const per = <T>(source: PerServer<T>, pick: (value: T) => number): PerServer<number> =>
    Object.fromEntries(Object.entries(source).map(([name, value]) => [name, pick(value as T)]));

  for (const [cell, byServer] of results.load) {
    rows.push(
      { metric: `/${cell} req/s`, values: per(byServer, (r) => r.reqPerSec), digits: 0, ratios: true },
      { metric: `/${cell} p50 ms`, values: per(byServer, (r) => r.p50Ms), digits: 1, ratios: true },
      { metric: `/${cell} p99 ms`, values: per(byServer, (r) => r.p99Ms), digits: 1, ratios: true },
      { metric: `/${cell} CPU ms/request`, values: per(byServer, (r) => r.cpuMsPerRequest), digits: 2, ratios: true },
    );
  }
  const loadErrors: PerServer<number> = {};
  for (const byServer of results.load.values()) {
    for (const [name, result] of Object.entries(byServer)) loadErrors[name as ServerName] = (loadErrors[name as ServerName] ?? 0) + result.errors;
  }
  rows.push({ metric: 'load runs: failed requests (all cells)', values: loadErrors, digits: 0, ratios: false });

  rows.push(
    { metric: 'stream c=1: first `text` event p50 ms', values: per(results.firstText, (t) => t.p50), digits: 1, ratios: true },
    { metric: 'stream c=1: first `text` event p99 ms', values: per(results.firstText, (t) => t.p99), digits: 1, ratios: true },
    { metric: 'stream c=1: last `text` → end p50 ms', values: per(results.lastTextToEnd, (t) => t.p50), digits: 1, ratios: true },
    { metric: 'stream c=1: last `text` → end p99 ms', values: per(results.lastTextToEnd, (t) => t.p99), digits: 1, ratios: true },
    { metric: 'stream c=1: failed timing streams', values: results.failedTimingStreams, digits: 0, ratios: false },
    { metric: 'RSS after boot MB', values: per(results.rss, (r) => r.bootMb), digits: 0, ratios: true },
    { metric: 'RSS peak under load MB', values: per(results.rss, (r) => r.loadPeakMb), digits: 0, ratios: true },
  );
  for (const size of THREAD_SIZES) {
    rows.push({ metric: `turn on a ${size.toLocaleString('en-US')}-message thread ms`, values: per(results.threadCost, (t) => t[size]), digits: 1, ratios: true });
  }
  rows.push(
    { metric: 'thread cost 10 000 / 10', values: per(results.threadCost, (t) => t[10_000] / t[10]), digits: 2, ratios: false },
    { metric: `${results.settings.slowStreams} slow streams: errors`, values: per(results.manyStreams, (m) => m.errors), digits: 0, ratios: false },
    { metric: `${results.settings.slowStreams} slow streams: RSS of the fresh process MB`, values: per(results.manyStreams, (m) => m.startRssMb), digits: 0, ratios: true },
    { metric: `${results.settings.slowStreams} slow streams: peak RSS MB`, values: per(results.manyStreams, (m) => m.peakRssMb), digits: 0, ratios: true },
    { metric: `${results.settings.slowStreams} slow streams: wall time s`, values: per(results.manyStreams, (m) => m.seconds), digits: 1, ratios: true },
  );
  return rows;
}

export function markdownTable(rows: Row[]): string {
  const lines = [
    `| figure | ${COLUMNS.join(' | ')} | ours/peer | ours/floor |`,
    `|---|${COLUMNS.map(() => '--:').join('|')}|--:|--:|`,
  ];
  for (const row of rows) {
    const cells = COLUMNS.map((name) => format(row.values[name], row.digits));
    const ratio = (other: ServerName) => (row.ratios ? formatRatio(row.values.ours, row.values[other]) : '');
    lines.push(`| ${row.metric} | ${cells.join(' | ')} | ${ratio('peer')} | ${ratio('floor')} |`);
  }
  return lines.join('\n');
}

function format(value: number | undefined, digits: number): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function formatRatio(ours: number | undefined, other: number | undefined): string {
  if (ours === undefined || other === undefined || !(other > 0) || Number.isNaN(ours)) return '';
  return `${(ours / other).toFixed(2)}×`;
}

function runDescription(results: SuiteResults): string {
  const s = results.settings;
  const cpu = cpus();
  return [
    `Run ${results.startedAt.toISOString()}, ${results.elapsedS.toFixed(0)} s, Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'CPU'},`,
    `load average ${results.loadAverage.start.toFixed(1)} at the start and ${results.loadAverage.end.toFixed(1)} at the end.`,
    `ours = \`${s.oursCommand}\`; load: ${s.repeats} interleaved repeats of ~${s.secondsPerRun} s per cell at ${s.connections.join('/')} connections, medians,`,
    `model paced ${s.loadPace} (a tool-call cell: weatherTool first);`,
    `stream timing: ${s.timingSamples} samples per server at c=1, model paced ${s.timingPace};`,
    `long threads: ${s.threadTurns} turns per size; slow streams: ${s.slowStreams} at once, model paced ${s.slowPace}.`,
  ].join('\n');
}

export function currentLoadAverage(): number {
  return loadavg()[0]!;
}

export function writeReadme(results: SuiteResults, table: string): string {
  const path = join(import.meta.dirname, 'README.md');
  writeFileSync(path, `${README_HEAD}\n## Latest run\n\n${runDescription(results)}\n\n${table}\n\n${README_TAIL}`);
  return path;
}

const README_HEAD = `# Benchmarks

\`npm run bench\` measures three servers side by side in one run, offline, prints one table and
rewrites the table below. It is sized for under five minutes on two idle cores; every run makes a
number of requests sized from the servers' own speed, so on a busy machine it takes longer (the run
description says how busy the machine was). \`npm run bench:profile\` profiles ours.
\`npm run bench:ab\` tells whether a change made ours cheaper: two commands of ours (\`BENCH_A_CMD\`,
\`BENCH_B_CMD\`, e.g. \`node ../before/src/server.ts\` in a worktree of the earlier commit, after its own
\`npm install\`), fresh processes every round, loaded at the same time, and the median of the rounds'
CPU ratios (\`bench/ab.ts\` says why; \`BENCH_AB_ROUNDS\` 8, \`BENCH_AB_REQUESTS\` 600,
\`BENCH_AB_CONNECTIONS\` 8).
Settings: \`BENCH_OURS_CMD\` (the command that starts ours, default \`node src/server.ts\`; it must
start the server process itself, not a shell or npm, so its pid is the one measured),
\`BENCH_SECONDS\` per load run (1.5), \`BENCH_REPEATS\` (3), the model's pacing in the load runs
(\`BENCH_FIRST_TOKEN_MS\` 0, \`BENCH_INTER_TOKEN_MS\` 0, \`BENCH_CHUNKS\` 8); for \`npm run bench:profile\`,
\`BENCH_PROFILE_ROUTE\` (\`generate\`, or \`stream\`) and \`BENCH_PROFILE_SECONDS\` (10). \`BENCH_SQL_LOG\`
is set by the profile for its statement log (\`bench/sql-log.ts\`), not by hand.

## What is compared

All three run the same agent (the companion's default instructions, \`weatherTool\` and
\`spiritualDestinationsTool\` with their schemas) against the same scripted OpenAI stand-in
(\`tests/fixtures/openai-stand-in.ts\` in bench mode: every request gets a default reply, paced
as configured), each in a child process of its own:

- **floor**: a bare Hono + \`@hono/node-server\` route calling the AI SDK's \`generateText\` /
  \`streamText\` directly, no memory (\`bench/servers/floor.ts\`). What a turn costs without a framework.
- **peer**: stock Mastra as a Mastra user writes it: \`new Mastra({agents: {companionAgent}})\`, the
  agent with \`@mastra/memory\` on a \`LibSQLStore\` (the same memory options as ours), served by
  \`createNodeServer\`, called on the native \`/api/agents/companionAgent/generate|stream\` routes
  with \`{messages, memory: {thread, resource}}\` (\`bench/servers/peer.ts\`).
- **ours**: \`node src/server.ts\` (set \`BENCH_OURS_CMD\` to run another entry), on the SPEC routes
  with \`{messages, threadId, resourceId}\`: memory on, LibSQL file store, \`LOG_LEVEL=warn\`.

## Method

- **Load** (autocannon): each connection sends the same user turn back to back on a thread of its
  own (resources spread over 8 users). Every cell (route × connections) runs once per server per
  repeat, servers interleaved in rotating order, and the table shows the median over repeats. Two
  more cells run a turn with a tool call at 16 connections: the model calls \`weatherTool\` (the
  Open-Meteo stand-in answers), then replies, two model requests per turn. A run makes an exact
  number of requests (sized from a warm-up to last ~N s), so every request counted has completed;
  a 2xx whose body holds no whole reply (a stream's error event) counts as failed, with the
  non-2xx answers. Latencies are autocannon's raw per-response times (sub-millisecond); a
  rate is the responses over the time from the start to the last response (autocannon itself ends
  on its next whole-second tick).
- **CPU ms/request**: the server process's utime + stime from \`/proc/PID/stat\` (all its threads,
  10 ms ticks) over the run, divided by the requests it answered. The model stand-in runs in
  another process and is not counted.
- **V8's memory reducer is off** in every server (\`node --no-memory-reducer\`; an ours command that
  does not start with \`node\` keeps it). It runs a full GC 5–10 s after a process stops allocating,
  330–410 ms of CPU for peer and ours after a load run: in an interleaved run, that GC lands inside
  another server's measured run, on the same two cores. It never fires under load, so turning it off
  leaves the requests' own cost.
- **RSS**: \`VmRSS\` from \`/proc/PID/status\` after boot (before any request), and its peak sampled
  every 50 ms during the load runs.
- **Stream timing**: a small SSE client (\`bench/sse-timing.ts\`) timestamps each event at one
  connection: request written → first reply-text event, and last text event → end of response.
- **Long threads**: threads with 10, 1 000 and 10 000 messages are written straight into the store
  before boot; the same \`/generate\` turn runs on each, sizes and servers interleaved; medians.
- **Slow streams**: each server is restarted (same store), then gets that many \`/stream\` requests
  at once, each on its own connection and thread; an error is a non-200, an error event, a socket
  error, or a reply text that is not complete. The restart is what makes the peak RSS the streams'
  own: V8 keeps the heap a process grew, so after the load runs every server's peak would be its
  load peak (the floor's was, to the megabyte).

## How to read it

Absolute figures depend on the machine and whatever else it runs; **the ratios are the result**,
because all servers were measured in the same minutes, interleaved. ours/peer below 1× on req/s
means ours is slower than stock Mastra; above 1× on CPU ms/request means it burns more CPU per
turn. The floor is what is left when the framework costs nothing: the gap between floor and ours
is the most that can be won. The first-text figure includes the stand-in's round trip (the same
for all three); last text → end is pure server work after the reply was complete.

Issue 11's targets, read off the table: ours/peer ≥ 2× on req/s and ≤ 0.5× on CPU ms/request at
c=16 for both routes; first \`text\` event ≤ the floor's + 2 ms; last \`text\` → end ≤ 2 ms;
thread cost 10 000 / 10 ≤ 1.1; 500 slow streams with 0 errors and peak RSS ≤ 400 MB.
`;

const README_TAIL = `## Profile

\`npm run bench:profile\` starts ours with \`node --cpu-prof\`, loads \`/generate\` at 16
connections for about 10 s and prints the top self-time functions grouped by package
(@mastra/core, libsql, zod, pino, node internals, project code …). It first counts the SQL
statements per turn of ours and of the peer with a statement log (\`bench/sql-log.ts\`).
`;
