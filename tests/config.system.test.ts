/**
 * What configuration does to a real process: start-up stopped by a bad setting, and the project root found
 * whatever the working directory. The parsing itself is tested in process (config.test.ts).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runServiceToExit, startService, tempDatabaseUrl } from './fixtures/service.ts';

const PROJECT_ROOT = join(import.meta.dirname, '..');

describe('configuration', () => {
  it('stops start-up with that message and no stack trace (a real process: exit code 1)', async () => {
    const { code, output } = await runServiceToExit({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration:');
    expect(output).toContain('PORT:');
    expect(output).toContain('LOG_LEVEL:');
    expect(output).toMatch(/DATABASE_URL: must start with file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//);
    expect(output).not.toMatch(/\n\s+at /);
  });

  it('stops start-up with one line naming PORT/HOST when the port is taken (exit code 1, no stack trace)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const { code, output } = await runServiceToExit({ HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'none' });
      expect(code).toBe(1);
      expect(output.trim()).toBe(`PORT/HOST: 127.0.0.1:${port} is already in use`);
    } finally {
      taken.close();
    }
  });

  it('stops start-up with one line naming PORT/HOST when HOST is a name no name server knows (exit code 1)', async () => {
    const { code, output } = await runServiceToExit({ HOST: 'no-such-host.invalid', PORT: '4111', DATABASE_URL: 'none' });
    expect(code).toBe(1);
    expect(output.trim()).toBe('PORT/HOST: no-such-host.invalid:4111 names a host that cannot be found');
  });

  it('stops start-up with one line naming the setting when the database folder cannot be made or written (exit code 1)', async () => {
    for (const tracing of ['off', 'on']) {
      const { code, output } = await runServiceToExit({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: '/dev/null/data', TRACING: tracing });
      expect(code, tracing).toBe(1);
      expect(output.trim(), tracing).toBe('DATABASE_URL/DATA_DIR: the database /dev/null/data/companion.db cannot be written there (ENOTDIR)');
    }
  });

  // DuckDB's engine, only the traces' store, was mapped into every process: 10 MB resident, in production too.
  it('loads the trace store (DuckDB) only with TRACING=on', async () => {
    for (const tracing of ['off', 'on']) {
      const service = await startService({ DATABASE_URL: tempDatabaseUrl(), TRACING: tracing, DATA_DIR: mkdtempSync(join(tmpdir(), 'companion-data-')) });
      try {
        expect((await fetch(`${service.url}/health`)).status, tracing).toBe(200);
        expect(readFileSync(`/proc/${service.pid}/maps`, 'utf8').includes('libduckdb'), tracing).toBe(tracing === 'on');
      } finally {
        await service.stop();
      }
    }
  });

  it.each(['', ' '])('starts with the empty or blank values a copied .env.example or compose gives (%j): the default, for the AI SDK too', async (blank) => {
    // @ai-sdk/openai reads OPENAI_BASE_URL itself as it loads, and refused an empty or blank one: the process exited with a stack.
    const service = await startService({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: blank, STT_BASE_URL: blank, DATABASE_URL: tempDatabaseUrl() });
    try {
      const ready = await fetch(`${service.url}/ready`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).checks.model).toEqual({ ok: true, detail: 'gpt-4o-mini via the Chat Completions API' });
    } finally {
      await service.stop();
    }
  });
});

/** A checkout of its own (the config module, a package.json, node_modules) whose `.env` holds `envFile`. */
function configCheckout(envFile: string): string {
  const checkout = mkdtempSync(join(tmpdir(), 'companion-checkout-'));
  writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'companion-agent', type: 'module' }));
  copyFileSync(join(PROJECT_ROOT, 'mastra.config.ts'), join(checkout, 'mastra.config.ts'));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(checkout, 'node_modules'));
  writeFileSync(join(checkout, '.env'), envFile);
  return checkout;
}

/** What an ES module `script` prints, parsed, run by a Node process of its own. */
async function printedBy(script: string, options: { cwd: string; env: Record<string, string | undefined> }) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], options);
  return JSON.parse(stdout);
}

describe('local files: one database for npm start, npm run dev and the built output', () => {
  it('does not depend on the working directory: the database and the .env are the project root\'s', async () => {
    // Run from a folder with another .env.
    const checkout = configCheckout('MODEL=from-the-root\n');
    const elsewhere = mkdtempSync(join(tmpdir(), 'companion-elsewhere-'));
    writeFileSync(join(elsewhere, '.env'), 'MODEL=from-the-working-directory\nDATA_DIR=/from-the-working-directory\n');
    const script = `import('${join(checkout, 'mastra.config.ts')}').then(({ loadConfig }) => {
      const { databaseUrl, model } = loadConfig();
      console.log(JSON.stringify({ databaseUrl, model: model?.id }));
    })`;
    expect(await printedBy(script, { cwd: elsewhere, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'k' } })).toEqual({
      databaseUrl: `file:${join(checkout, 'data', 'companion.db')}`,
      model: 'from-the-root',
    });
  });
});

describe('.env.example copied as it is', () => {
  it('is a configuration the service and the AI SDK both accept: its empty values mean the defaults', async () => {
    const checkout = configCheckout(readFileSync(join(PROJECT_ROOT, '.env.example'), 'utf8'));
    // The order of the entry points: the configuration, then the provider (it reads the environment as it loads).
    const script = `import('${join(checkout, 'mastra.config.ts')}').then(async ({ loadConfig }) => {
      const { model } = loadConfig();
      const { createOpenAI } = await import('@ai-sdk/openai');
      createOpenAI({ apiKey: model?.apiKey, baseURL: model?.baseURL }).chat('gpt-4o-mini');
      console.log(JSON.stringify({ model }));
    })`;
    const printed = await printedBy(script, { cwd: checkout, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test' } });
    expect(printed.model).toMatchObject({ apiKey: 'sk-test', api: 'chat', id: 'gpt-4o-mini' });
  });
});
