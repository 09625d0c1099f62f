/**
 * @module A statement log for a server under test, loaded before it with
 * `node --import ./bench/sql-log.ts`. It counts every SQL statement the process runs through the libsql
 * driver (a prepared statement's `run`/`get`/`all`/`iterate`, and `Database#exec`), and on
 * SIGUSR2 writes the counts since the previous SIGUSR2, with a sequence number, as JSON to
 * the file named by BENCH_SQL_LOG. Each statement is counted per call site: the SQL text, then
 * the stack frames (raw `file:line:column`, mapped by the reader) of whoever called the memory
 * store, taken when the store method was called, since its own awaits hide the caller later.
 * Product code is not touched.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MemoryLibSQL } from '@mastra/libsql';

const logPath = process.env.BENCH_SQL_LOG;
if (!logPath) throw new Error('sql-log: set BENCH_SQL_LOG to the output file');

// deep enough to see past the driver, the client and the store adapter into their callers
Error.stackTraceLimit = 40;
const counts = new Map<string, number>();
const storeCaller = new AsyncLocalStorage<string>();
let sequence = 0;

// the CommonJS module @libsql/client imports: one module instance, so patching its prototypes reaches every connection.
// A statement is counted when it runs, not when it is prepared: the patched client (patches/) reuses prepared statements.
const Database = createRequire(import.meta.url)('libsql');
const sqlOf = new WeakMap<object, string>();
const EXECUTIONS = ['run', 'get', 'all', 'iterate'] as const;
let statementsPatched = false;
let running = false;

function count(sql: string) {
  const key = `${normalise(sql)}\n${storeCaller.getStore() ?? callSite()}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: unknown, sql: string, ...rest: unknown[]) {
  const statement = prepare.call(this, sql, ...rest);
  sqlOf.set(statement, sql);
  if (!statementsPatched) patchStatements(Object.getPrototypeOf(statement));
  return statement;
};

function patchStatements(prototype: Record<string, (...args: unknown[]) => unknown>) {
  statementsPatched = true;
  for (const method of EXECUTIONS) {
    const original = prototype[method]!;
    prototype[method] = function (this: object, ...args: unknown[]) {
      // `all` runs through `iterate`: one statement, counted once
      if (running) return original.apply(this, args);
      count(sqlOf.get(this) ?? '(unknown statement)');
      running = true;
      try {
        return original.apply(this, args);
      } finally {
        running = false;
      }
    };
  }
}

const exec = Database.prototype.exec;
Database.prototype.exec = function (this: unknown, sql: string, ...rest: unknown[]) {
  count(sql);
  return exec.call(this, sql, ...rest);
};

// remember who called the memory store; a store method calling another keeps the outer caller
for (const name of Object.getOwnPropertyNames(MemoryLibSQL.prototype)) {
  const original = Object.getOwnPropertyDescriptor(MemoryLibSQL.prototype, name)?.value;
  if (name === 'constructor' || typeof original !== 'function') continue;
  Object.defineProperty(MemoryLibSQL.prototype, name, {
    configurable: true,
    writable: true,
    value: function (this: unknown, ...args: unknown[]) {
      if (storeCaller.getStore()) return original.apply(this, args);
      return storeCaller.run(callSite(), () => original.apply(this, args));
    },
  });
}

process.on('SIGUSR2', () => {
  // written aside, then renamed: the reader never sees half a file
  writeFileSync(`${logPath}.tmp`, JSON.stringify({ sequence: ++sequence, counts: [...counts] }));
  renameSync(`${logPath}.tmp`, logPath);
  counts.clear();
});

const HIDDEN_FRAMES = /node_modules\/(libsql|@libsql)\/|node:internal|sql-log\.ts|^Error$/;
const CALLER_FRAMES = 4;

/** The nearest frames above the driver and this log, one per line, `at ` dropped. */
function callSite(): string {
  const frames = (new Error().stack ?? '').split('\n').map((line) => line.trim().replace(/^at /, ''));
  return frames.filter((frame) => !HIDDEN_FRAMES.test(frame)).slice(0, CALLER_FRAMES).join('\n');
}

/** One line, literal values kept (they are bound parameters here), long column lists shortened. */
function normalise(sql: string): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > 140 ? `${line.slice(0, 137)}...` : line;
}
