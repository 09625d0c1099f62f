/**
 * @module Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and says where the time went: self
 * time by package group (@mastra/core, libsql, zod, pino, node internals, project code …), the
 * top functions by self time, and the top framework functions by inclusive time. Bundled
 * packages are mapped back to their original sources through their `.js.map` files, with
 * Node's own SourceMap class.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionCost {
  name: string;
  /** package group, e.g. `@mastra/core` */
  group: string;
  /** where it is: original source when a source map knows it, else the file, with line */
  location: string;
  ms: number;
}

export interface ProfileSummary {
  /** busy time in the window (idle excluded), ms */
  busyMs: number;
  groups: Array<{ group: string; ms: number }>;
  topSelf: FunctionCost[];
  topInclusive: FunctionCost[];
}

/** Samples outside [fromUs, toUs] (V8's monotonic clock, µs, the same as process.hrtime) are left out. */
export function summariseProfile(path: string, repoRoot: string, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    // a sample stands for the time until the next one
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + weight);
  }

  const locator = createLocator(repoRoot);
  const locate = (frame: CallFrame) => locator(frame.url, frame.lineNumber, frame.columnNumber);
  const groupOf = memo((id: number): string => {
    const node = byId.get(id)!;
    const own = groupOfFrame(node.callFrame, repoRoot);
    if (own !== undefined) return own;
    // a native function (no url) is charged to the JavaScript that called it: libsql's binding to libsql
    const caller = parent.get(id);
    return caller === undefined ? 'V8 / native' : groupOf(caller);
  });

  const groups = new Map<string, number>();
  const self = new Map<string, FunctionCost>();
  const inclusive = new Map<string, FunctionCost>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busyUs += us;
    const group = groupOf(id);
    groups.set(group, (groups.get(group) ?? 0) + us);
    add(self, node, group, us);
    // inclusive: every distinct function on the sampled stack, once
    const seen = new Set<string>();
    for (let ancestor: number | undefined = id; ancestor !== undefined; ancestor = parent.get(ancestor)) {
      const frame = byId.get(ancestor)!;
      const key = keyOf(frame.callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, frame, groupOf(ancestor), us);
    }
  }

  function add(into: Map<string, FunctionCost>, node: ProfileNode, group: string, us: number) {
    const key = keyOf(node.callFrame);
    const entry = into.get(key) ?? { name: node.callFrame.functionName || '(anonymous)', group, location: locate(node.callFrame), ms: 0 };
    entry.ms += us / 1000;
    into.set(key, entry);
  }

  const byMs = (a: { ms: number }, b: { ms: number }) => b.ms - a.ms;
  return {
    busyMs: busyUs / 1000,
    groups: [...groups].map(([group, us]) => ({ group, ms: us / 1000 })).sort(byMs),
    topSelf: [...self.values()].sort(byMs).slice(0, 30),
    // the framework's own code paths: what a turn spends inside Mastra, the store and the schemas
    topInclusive: [...inclusive.values()]
      .filter((cost) => FRAMEWORK_GROUPS.has(cost.group) && cost.name !== '(anonymous)')
      .sort(byMs)
      .slice(0, 25),
  };
}

const FRAMEWORK_GROUPS = new Set(['@mastra/core', '@mastra/memory', 'libsql', 'zod', 'pino', 'ai sdk']);

/** Packages that belong together in the summary. */
const PACKAGE_GROUPS: Record<string, string> = {
  libsql: 'libsql',
  '@libsql/client': 'libsql',
  '@libsql/core': 'libsql',
  '@mastra/libsql': 'libsql',
  pino: 'pino',
  'pino-pretty': 'pino',
  'sonic-boom': 'pino',
  'thread-stream': 'pino',
  '@mastra/loggers': 'pino',
  ai: 'ai sdk',
  '@ai-sdk/openai': 'ai sdk',
  '@ai-sdk/provider-utils': 'ai sdk',
  '@ai-sdk/provider': 'ai sdk',
  hono: 'hono',
  '@hono/node-server': 'hono',
};

function groupOfFrame(frame: CallFrame, repoRoot: string): string | undefined {
  const { functionName, url } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)' || functionName === '(root)') return 'V8 / native';
  if (!url) return undefined;
  if (url.startsWith('node:')) return 'node internals';
  const packageName = packageOf(url);
  if (packageName) return PACKAGE_GROUPS[packageName] ?? packageName;
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  if (path.startsWith(`${repoRoot}/src/`) || path === `${repoRoot}/mastra.config.ts`) return 'project code';
  return path.startsWith(repoRoot) ? 'bench / tests' : 'other';
}

function packageOf(url: string): string | undefined {
  const index = url.lastIndexOf('/node_modules/');
  if (index === -1) return undefined;
  const [first, second] = url.slice(index + '/node_modules/'.length).split('/');
  return first!.startsWith('@') ? `${first}/${second}` : first;
}

function keyOf(frame: CallFrame): string {
  return `${frame.functionName}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`;
}

/**
 * Names a place in the code: `package original/source.ts:line (bundle.js:line)` where a source
 * map knows it, else `path:line` relative to node_modules or the repository. Lines and columns
 * in are 0-based, as V8 reports them; lines out are 1-based.
 */
export function createLocator(repoRoot: string) {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (path: string) => {
    if (!maps.has(path)) {
      const mapPath = `${path}.map`;
      maps.set(path, existsSync(mapPath) ? new SourceMap(JSON.parse(readFileSync(mapPath, 'utf8'))) : undefined);
    }
    return maps.get(path);
  };
  return (url: string, line: number, column: number): string => {
    if (!url) return '(native)';
    if (!url.startsWith('file:') && !url.startsWith('/')) return `${url}:${line + 1}`;
    const path = url.startsWith('file:') ? fileURLToPath(url) : url;
    const shortPath = shorten(path, repoRoot);
    const entry = mapOf(path)?.findEntry(line, column);
    if (entry && 'originalSource' in entry && entry.originalSource) {
      const source = entry.originalSource.replace(/^(\.\.\/)+/, '');
      return `${packageOf(path) ?? ''} ${source}:${entry.originalLine + 1} (${shortPath.split('/').pop()}:${line + 1})`;
    }
    return `${shortPath}:${line + 1}`;
  };
}

function shorten(path: string, repoRoot: string): string {
  const index = path.lastIndexOf('/node_modules/');
  if (index !== -1) return path.slice(index + '/node_modules/'.length);
  return path.startsWith(repoRoot) ? path.slice(repoRoot.length + 1) : path;
}

function memo<T>(compute: (id: number) => T): (id: number) => T {
  const cache = new Map<number, T>();
  return (id) => {
    if (!cache.has(id)) cache.set(id, compute(id));
    return cache.get(id)!;
  };
}

/**
 * The summary as text. Shares are of the sampled (non-idle) time; `cpuMsPerRequest` (from /proc)
 * turns them into CPU ms per request, since on a busy machine wall-clock samples also count
 * time the process waited for a core.
 */
export function formatSummary(summary: ProfileSummary, cpuMsPerRequest: number): string {
  const share = (ms: number) => ms / summary.busyMs;
  const cost = (ms: number) => `${(100 * share(ms)).toFixed(1).padStart(5)} %  ${(share(ms) * cpuMsPerRequest).toFixed(2).padStart(5)} ms/req`;
  const lines = [`sampled (non-idle) time in the load window: ${summary.busyMs.toFixed(0)} ms`, '', 'self time by package group:'];
  for (const { group, ms } of summary.groups) lines.push(`  ${cost(ms)}  ${group}`);
  lines.push('', 'top functions by self time:');
  for (const entry of summary.topSelf) lines.push(`  ${cost(entry.ms)}  ${entry.name}  [${entry.group}]  ${entry.location}`);
  lines.push('', 'top framework functions by inclusive time (self + callees):');
  for (const entry of summary.topInclusive) lines.push(`  ${cost(entry.ms)}  ${entry.name}  [${entry.group}]  ${entry.location}`);
  return lines.join('\n');
}
