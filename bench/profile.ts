/**
 * @module `npm run bench:profile`: where ours spends its time.
 *
 * 1. SQL statements per turn, for ours and the peer: each started under the statement log
 *    (bench/sql-log.ts), a thread warmed up, then turns counted on /generate and /stream.
 * 2. A CPU profile of ours (`node --cpu-prof`) under /generate (or BENCH_PROFILE_ROUTE=stream) at
 *    16 connections for ~10 s (BENCH_PROFILE_SECONDS), summarised by package group, self time and inclusive time. Only
 *    the samples taken during the load count: boot and warm-up are left out.
 *
 * BENCH_OURS_CMD runs another entry, as for `npm run bench`.
 */
import { readdirSync, readFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocator, formatSummary, summariseProfile } from './cpu-profile.ts';
import { runLoad, warmUp } from './load.ts';
import { DEFAULT_OURS_COMMAND, REPO_ROOT, startServer, tempDatabaseUrl, type Route, type ServerName, type ServerUnderTest } from './servers.ts';
import { INSTANT, startStandIns, type StandIns } from './stand-in.ts';

const oursCommand = process.env.BENCH_OURS_CMD ?? DEFAULT_OURS_COMMAND;
const profileSeconds = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const profileRoute: Route = process.env.BENCH_PROFILE_ROUTE === 'stream' ? 'stream' : 'generate';
const COUNTED_TURNS = 10;
const locate = createLocator(REPO_ROOT);

const standIns = await startStandIns();
try {
  await standIns.pace(INSTANT);
  for (const name of ['peer', 'ours'] as const) console.log(await countStatements(standIns, name));
  console.log(await profileOurs(standIns));
} finally {
  await standIns.close();
}

async function countStatements(standIns: StandIns, name: ServerName): Promise<string> {
  const logPath = join(mkdtempSync(join(tmpdir(), 'bench-sql-')), 'counts.json');
  const server = await startServer(name, {
    standIns,
    databaseUrl: tempDatabaseUrl(`sql-${name}`),
    oursCommand,
    nodeFlags: ['--import', join(REPO_ROOT, 'bench/sql-log.ts')],
    env: { BENCH_SQL_LOG: logPath },
  });
  const lines = [`=== SQL statements per turn: ${name} ===`];
  try {
    const log = statementLog(server, logPath);
    const ids = { threadId: `sql-${name}`, resourceId: 'bench-sql' };
    // the store creates its tables on first use: that turn is not counted
    await turn(server, 'generate', { threadId: `sql-${name}-boot`, resourceId: 'bench-sql' });
    await log.take();
    await turn(server, 'generate', ids);
    lines.push(describe('first turn on a new thread (/generate)', await log.take(), 1));
    for (let i = 0; i < 3; i++) await turn(server, 'generate', ids);
    for (const route of ['generate', 'stream'] as const) {
      await log.take();
      for (let i = 0; i < COUNTED_TURNS; i++) await turn(server, route, ids);
      lines.push(describe(`turn on an existing thread (/${route}), mean of ${COUNTED_TURNS}`, await log.take(), COUNTED_TURNS));
    }
  } finally {
    await server.stop();
  }
  return lines.join('\n');
}

/** Asks the server's statement log for its counts since the last ask (SIGUSR2), once the turn's trailing writes are done. */
function statementLog(server: ServerUnderTest, path: string) {
  let sequence = 0;
  return {
    async take(): Promise<Array<[string, number]>> {
      await sleep(200);
      process.kill(server.pid, 'SIGUSR2');
      sequence++;
      for (let attempt = 0; attempt < 100; attempt++) {
        if (existsSync(path)) {
          const written = JSON.parse(readFileSync(path, 'utf8'));
          if (written.sequence === sequence) return written.counts;
        }
        await sleep(20);
      }
      throw new Error(`${server.name}: the statement log did not answer:\n${server.output()}`);
    },
  };
}

/** Statements by SQL text, most frequent first, each with its call sites (nearest caller first). */
function describe(title: string, counts: Array<[string, number]>, turns: number): string {
  const bySql = new Map<string, Array<{ site: string; count: number }>>();
  for (const [key, count] of counts) {
    const [sql, ...frames] = key.split('\n');
    bySql.set(sql!, [...(bySql.get(sql!) ?? []), { site: frames.map(readableFrame).join('\n           ← '), count }]);
  }
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  const perTurn = (count: number) => (count / turns).toFixed(1).padStart(5);
  const lines = [`${title}: ${(total / turns).toFixed(1)} statements`];
  const sum = (sites: Array<{ count: number }>) => sites.reduce((all, site) => all + site.count, 0);
  for (const [sql, sites] of [...bySql].sort((a, b) => sum(b[1]) - sum(a[1]))) {
    lines.push(`  ${perTurn(sum(sites))}  ${sql}`);
    for (const { site, count } of sites.sort((a, b) => b.count - a.count)) lines.push(`    ${perTurn(count)}  ${site}`);
  }
  return lines.join('\n');
}

/** `name (file:line:column)` from a V8 stack line, with the file mapped to its original source. */
function readableFrame(frame: string): string {
  const match = /^(?:async )?(?:(.*?) \()?((?:file:|node:|\/)[^()]*?):(\d+):(\d+)\)?$/.exec(frame);
  if (!match) return frame;
  const [, name, url, line, column] = match;
  return `${name ?? '(anonymous)'}  ${locate(url!, Number(line) - 1, Number(column) - 1)}`;
}

async function turn(server: ServerUnderTest, route: Route, ids: { threadId: string; resourceId: string }) {
  const response = await fetch(server.url + server.path[route], {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(server.body('Hello there', ids)),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${server.name} /${route} answered ${response.status}`);
}

async function profileOurs(standIns: StandIns): Promise<string> {
  const profileDir = mkdtempSync(join(tmpdir(), 'bench-cpuprofile-'));
  const server = await startServer('ours', {
    standIns,
    databaseUrl: tempDatabaseUrl('profile'),
    oursCommand,
    nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profileDir],
  });
  let window: { fromUs: number; toUs: number };
  let load;
  try {
    const rate = await warmUp(server, profileRoute, 16);
    const fromUs = nowUs();
    load = await runLoad(server, { route: profileRoute, connections: 16, requests: Math.round(rate * profileSeconds) });
    window = { fromUs, toUs: nowUs() };
  } finally {
    // the profile is written when the process exits; createNodeServer exits on SIGTERM
    await server.stop();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${profileDir}`);
  const summary = summariseProfile(join(profileDir, file), REPO_ROOT, window);
  return [
    `=== CPU profile: ours, /${profileRoute} c=16, ${load.requests} requests at ${load.reqPerSec.toFixed(0)} req/s, ${load.cpuMsPerRequest.toFixed(2)} CPU ms/request ===`,
    `profile: ${join(profileDir, file)} (open in Chrome DevTools → Performance)`,
    formatSummary(summary, load.cpuMsPerRequest),
  ].join('\n');
}

/** The monotonic clock V8 stamps profile samples with, in µs. */
function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
