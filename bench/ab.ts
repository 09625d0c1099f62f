/**
 * @module `npm run bench:ab`: is B cheaper per turn than A? Two commands of ours (say, this checkout
 * and a worktree of an earlier commit), compared on CPU ms per request.
 *
 * A change worth a few per cent is smaller than the noise of a side-by-side run, for two reasons
 * measured here: one process of unchanged code runs a few per cent cheaper or dearer than the next
 * (its JIT decided differently), and of two servers loaded at the same time, the first started (and
 * loaded) ran about 4 % dearer. So every round starts both anew, loads them at the same time, each
 * with its own connections, so both see the same machine, alternates which starts first, and the
 * result is the median of the rounds' B/A ratios. A against itself gave medians of 1.000, rounds
 * within ±5 %.
 *
 * Settings (environment): BENCH_A_CMD and BENCH_B_CMD (each default `node src/server.ts`, a
 * command as for BENCH_OURS_CMD), BENCH_AB_ROUNDS (8), BENCH_AB_REQUESTS per server and run (600),
 * BENCH_AB_CONNECTIONS per server (8). The model stand-in answers at once (bench/stand-in.ts).
 */
import { INSTANT, startStandIns } from './stand-in.ts';
import { DEFAULT_OURS_COMMAND, startServer, tempDatabaseUrl, type Route, type ServerUnderTest } from './servers.ts';
import { median, runLoad, warmUp, type LoadResult } from './load.ts';

const SIDES = ['A', 'B'] as const;
type Side = (typeof SIDES)[number];

const commands: Record<Side, string> = {
  A: process.env.BENCH_A_CMD ?? DEFAULT_OURS_COMMAND,
  B: process.env.BENCH_B_CMD ?? DEFAULT_OURS_COMMAND,
};
const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 8);
const requests = Number(process.env.BENCH_AB_REQUESTS ?? 600);
const connections = Number(process.env.BENCH_AB_CONNECTIONS ?? 8);
const ROUTES: Route[] = ['generate', 'stream'];

const standIns = await startStandIns();
await standIns.pace(INSTANT);
const results = new Map(ROUTES.map((route) => [route, [] as Record<Side, LoadResult>[]]));
try {
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    const servers = await startBoth(order);
    try {
      for (const route of ROUTES) {
        const loads = await Promise.all(order.map((side) => runLoad(servers[side], { route, connections, requests })));
        const bySide = Object.fromEntries(order.map((side, i) => [side, loads[i]!])) as Record<Side, LoadResult>;
        results.get(route)!.push(bySide);
        process.stderr.write(`[ab] round ${round + 1}/${rounds} ${route}: A ${bySide.A.cpuMsPerRequest.toFixed(2)}, B ${bySide.B.cpuMsPerRequest.toFixed(2)} CPU ms/request\n`);
      }
    } finally {
      await Promise.all(SIDES.map((side) => servers[side].stop()));
    }
  }
} finally {
  await standIns.close();
}
console.log(report());

/** Both servers anew, started in `order`, each warmed up on both routes. */
async function startBoth(order: Side[]): Promise<Record<Side, ServerUnderTest>> {
  const servers = {} as Record<Side, ServerUnderTest>;
  for (const side of order) {
    servers[side] = await startServer('ours', { standIns, databaseUrl: tempDatabaseUrl(`ab-${side}`), oursCommand: commands[side] });
  }
  for (const side of order) for (const route of ROUTES) await warmUp(servers[side], route, connections);
  return servers;
}

function report(): string {
  const lines = [
    `A = \`${commands.A}\`, B = \`${commands.B}\`; ${rounds} rounds of ${requests} requests per server and route, ${connections} connections each, both loaded at once.`,
    '',
    '| route | B/A CPU ms/request, median | B/A, lowest–highest round | A CPU ms/request | B CPU ms/request | failed requests A / B |',
    '|---|--:|--:|--:|--:|--:|',
  ];
  for (const [route, runs] of results) {
    const ratios = runs.map((run) => run.B.cpuMsPerRequest / run.A.cpuMsPerRequest);
    const cpu = (side: Side) => median(runs.map((run) => run[side].cpuMsPerRequest)).toFixed(2);
    const failed = (side: Side) => runs.reduce((sum, run) => sum + run[side].errors, 0);
    const range = `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`;
    lines.push(`| /${route} | ${median(ratios).toFixed(3)} | ${range} | ${cpu('A')} | ${cpu('B')} | ${failed('A')} / ${failed('B')} |`);
  }
  return lines.join('\n');
}
