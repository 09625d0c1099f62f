/**
 * @module `npm run bench`: floor, peer and ours side by side in one run (see bench/README.md),
 * one markdown table on stdout and in bench/README.md.
 *
 * Settings (environment): BENCH_OURS_CMD (default `node src/server.ts`), BENCH_SECONDS per load
 * run (1.5), BENCH_REPEATS (3), and the model's pacing in the load runs: BENCH_FIRST_TOKEN_MS (0),
 * BENCH_INTER_TOKEN_MS (0), BENCH_CHUNKS (8). Progress goes to stderr.
 */
import { INSTANT, startStandIns, type BenchTurn } from './stand-in.ts';
import { startServer, SERVER_NAMES, tempDatabaseUrl, DEFAULT_OURS_COMMAND, type Route, type ServerName, type ServerUnderTest } from './servers.ts';
import { median, percentile, runLoad, threadFor, warmUp, type LoadResult } from './load.ts';
import { manyStreams, sampleStreamTimings } from './sse-timing.ts';
import { measureThreadCost, seedLongThreads } from './long-thread.ts';
import { currentLoadAverage, markdownTable, rowsOf, writeReadme, type SuiteResults, type SuiteSettings } from './report.ts';
import { benchReplyChunks } from '../tests/fixtures/openai-stand-in.ts';

const LOAD_PACE: BenchTurn = {
  firstTokenMs: Number(process.env.BENCH_FIRST_TOKEN_MS ?? INSTANT.firstTokenMs),
  interTokenMs: Number(process.env.BENCH_INTER_TOKEN_MS ?? INSTANT.interTokenMs),
  chunks: Number(process.env.BENCH_CHUNKS ?? INSTANT.chunks),
};
/** A turn with one tool call: the model calls weatherTool (the Open-Meteo stand-in answers), then replies. */
const TOOL_CALL_PACE: BenchTurn = { ...LOAD_PACE, toolCall: { name: 'weatherTool', args: { location: 'Paris' } } };
const TIMING_PACE: BenchTurn = { firstTokenMs: 0, interTokenMs: 2, chunks: 10 };
const SLOW_PACE: BenchTurn = { firstTokenMs: 300, interTokenMs: 300, chunks: 10 };
const ROUTES: Route[] = ['generate', 'stream'];

const settings: SuiteSettings = {
  oursCommand: process.env.BENCH_OURS_CMD ?? DEFAULT_OURS_COMMAND,
  repeats: Number(process.env.BENCH_REPEATS ?? 3),
  secondsPerRun: Number(process.env.BENCH_SECONDS ?? 1.5),
  connections: [1, 16, 64],
  loadPace: paceText(LOAD_PACE),
  timingSamples: 200,
  timingPace: paceText(TIMING_PACE),
  threadTurns: 20,
  slowStreams: 500,
  slowPace: paceText(SLOW_PACE),
};

const log = (message: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0)}s] ${message}\n`);
const t0 = performance.now();
const startedAt = new Date();
const loadAtStart = currentLoadAverage();

const standIns = await startStandIns();
const databases = { peer: tempDatabaseUrl('peer'), ours: tempDatabaseUrl('ours') };
log('seeding the long threads');
await seedLongThreads(tempDatabaseUrl('seed'), [databases.peer, databases.ours]);

const start = (name: ServerName) =>
  startServer(name, { standIns, databaseUrl: name === 'floor' ? 'file::memory:' : databases[name], oursCommand: settings.oursCommand });
const servers: ServerUnderTest[] = [];
try {
  for (const name of SERVER_NAMES) servers.push(await start(name));
  await settleAfterBoot();
  const bootRss = Object.fromEntries(servers.map((server) => [server.name, server.rssMb()]));
  log(`booted: ${servers.map((server) => `${server.name} ${bootRss[server.name]!.toFixed(0)} MB`).join(', ')}`);

  const load = await loadPhase(servers);
  const results: SuiteResults = {
    settings,
    startedAt,
    elapsedS: 0,
    loadAverage: { start: loadAtStart, end: 0 },
    load: load.medians,
    ...(await streamTimingPhase(servers)),
    rss: Object.fromEntries(servers.map((server) => [server.name, { bootMb: bootRss[server.name]!, loadPeakMb: load.peakRss[server.name]! }])),
    threadCost: Object.fromEntries(await threadPhase(servers.filter((server) => server.name !== 'floor'))),
    manyStreams: await manyStreamsPhase(servers),
  };
  results.elapsedS = (performance.now() - t0) / 1000;
  results.loadAverage.end = currentLoadAverage();
  const table = markdownTable(rowsOf(results));
  console.log(table);
  log(`written to ${writeReadme(results, table)}`);
} catch (error) {
  for (const server of servers) process.stderr.write(`--- ${server.name} output ---\n${server.output()}\n`);
  throw error;
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await standIns.close();
}

async function loadPhase(servers: ServerUnderTest[]) {
  const cells = [
    ...ROUTES.flatMap((route) => settings.connections.map((connections) => ({ route, connections, key: `${route} c=${connections}`, pace: LOAD_PACE }))),
    ...ROUTES.map((route) => ({ route, connections: 16, key: `${route} c=16 tool call`, pace: TOOL_CALL_PACE })),
  ];
  const rate = new Map<string, number>();
  log('warming up');
  for (const cell of cells) {
    await standIns.pace(cell.pace);
    for (const server of servers) rate.set(`${server.name} ${cell.key}`, await warmUp(server, cell.route, cell.connections));
  }
  const runs = new Map<string, LoadResult[]>();
  const peakRss: Partial<Record<ServerName, number>> = {};
  for (let repeat = 0; repeat < settings.repeats; repeat++) {
    log(`load repeat ${repeat + 1}/${settings.repeats}`);
    for (const [index, cell] of cells.entries()) {
      await standIns.pace(cell.pace);
      // rotate the order so no server always runs first (right after another's heaviest cell)
      for (const server of rotate(servers, repeat + index)) {
        const key = `${server.name} ${cell.key}`;
        const result = await runLoad(server, { route: cell.route, connections: cell.connections, requests: Math.round(rate.get(key)! * settings.secondsPerRun) });
        runs.set(key, [...(runs.get(key) ?? []), result]);
        // the next repeat is sized from this one: a better estimate than the short warm-up
        rate.set(key, result.reqPerSec);
        peakRss[server.name] = Math.max(peakRss[server.name] ?? 0, result.peakRssMb);
        if (result.errors) log(`${key}: ${result.errors} failed requests`);
      }
    }
  }
  const medians = new Map(
    cells.map((cell) => [cell.key, Object.fromEntries(servers.map((server) => [server.name, medianResult(runs.get(`${server.name} ${cell.key}`)!)]))]),
  );
  return { medians, peakRss };
}

async function streamTimingPhase(servers: ServerUnderTest[]) {
  log(`stream timing, ${settings.timingSamples} samples per server`);
  await standIns.pace(TIMING_PACE);
  const outcomes = await sampleStreamTimings(servers, settings.timingSamples, (server) => threadFor(0, `timing-${server.name}`));
  const firstText: SuiteResults['firstText'] = {};
  const lastTextToEnd: SuiteResults['lastTextToEnd'] = {};
  const failedTimingStreams: SuiteResults['failedTimingStreams'] = {};
  for (const [name, samples] of outcomes) {
    const failed = samples.filter((sample) => sample.failed).length;
    failedTimingStreams[name] = failed;
    if (failed) log(`${name}: ${failed} failed timing streams`);
    const ok = samples.filter((sample) => !sample.failed);
    const first = ok.map((sample) => sample.firstTextMs);
    const tail = ok.map((sample) => sample.lastTextToEndMs);
    firstText[name] = { p50: percentile(first, 0.5), p99: percentile(first, 0.99) };
    lastTextToEnd[name] = { p50: percentile(tail, 0.5), p99: percentile(tail, 0.99) };
  }
  return { firstText, lastTextToEnd, failedTimingStreams };
}

async function threadPhase(servers: ServerUnderTest[]) {
  log('long threads');
  await standIns.pace(INSTANT);
  return measureThreadCost(servers, settings.threadTurns, 3);
}

/**
 * Each server is restarted first (same store), so the peak RSS is what the streams cost on top of a
 * boot: a process keeps the heap its heaviest earlier load grew, and that peak would hide them.
 */
async function manyStreamsPhase(servers: ServerUnderTest[]) {
  await standIns.pace(SLOW_PACE);
  const expected = benchReplyChunks(SLOW_PACE.chunks).join('');
  const results: SuiteResults['manyStreams'] = {};
  for (const [index, server] of servers.entries()) {
    await server.stop();
    // in place, so that the run's end stops the fresh process
    const fresh = (servers[index] = await start(server.name));
    await settleAfterBoot();
    log(`${settings.slowStreams} slow streams on a fresh ${fresh.name}`);
    results[fresh.name] = await manyStreams(fresh, settings.slowStreams, expected, (stream) => threadFor(stream, `slow-${fresh.name}`));
  }
  return results;
}

/** Lets start-up work (schema checks, lazy imports) finish before an RSS is read. */
function settleAfterBoot() {
  return new Promise((resolve) => setTimeout(resolve, 1_000));
}

function medianResult(results: LoadResult[]): LoadResult {
  const mid = (pick: (result: LoadResult) => number) => median(results.map(pick));
  return {
    requests: mid((r) => r.requests),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    reqPerSec: mid((r) => r.reqPerSec),
    p50Ms: mid((r) => r.p50Ms),
    p99Ms: mid((r) => r.p99Ms),
    cpuMsPerRequest: mid((r) => r.cpuMsPerRequest),
    peakRssMb: Math.max(...results.map((r) => r.peakRssMb)),
  };
}

function rotate<T>(items: T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function paceText(pace: BenchTurn): string {
  return `first token ${pace.firstTokenMs} ms, ${pace.chunks} chunks ${pace.interTokenMs} ms apart`;
}
