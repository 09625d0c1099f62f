/**
 * What configuration does to a real process: start-up stopped by a bad setting, and the project root found
 * whatever the working directory. The parsing itself is tested in process (config.test.ts).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runServiceToExit } from './fixtures/service.ts';

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
});

describe('local files: one database for npm start, npm run dev and the built output', () => {
  it('does not depend on the working directory: the database and the .env are the project root\'s', async () => {
    // A checkout of its own (the config module, a package.json, node_modules) with a .env, run from a folder with another .env.
    const checkout = mkdtempSync(join(tmpdir(), 'companion-checkout-'));
    writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'companion-agent', type: 'module' }));
    copyFileSync(join(PROJECT_ROOT, 'mastra.config.ts'), join(checkout, 'mastra.config.ts'));
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(checkout, 'node_modules'));
    writeFileSync(join(checkout, '.env'), 'MODEL=from-the-root\n');
    const elsewhere = mkdtempSync(join(tmpdir(), 'companion-elsewhere-'));
    writeFileSync(join(elsewhere, '.env'), 'MODEL=from-the-working-directory\nDATA_DIR=/from-the-working-directory\n');
    const script = `import('${join(checkout, 'mastra.config.ts')}').then(({ loadConfig }) => {
      const { databaseUrl, model } = loadConfig();
      console.log(JSON.stringify({ databaseUrl, model: model?.id }));
    })`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: elsewhere,
      env: { PATH: process.env.PATH, OPENAI_API_KEY: 'k' },
    });
    expect(JSON.parse(stdout)).toEqual({ databaseUrl: `file:${join(checkout, 'data', 'companion.db')}`, model: 'from-the-root' });
  });
});
