/**
 * The container set-up, checked without a container engine: the Dockerfile's
 * instructions and compose.yaml's structure (parsed as YAML), and that every
 * setting they pass is one the service reads. `docker compose config` checks
 * the file against Compose itself where docker is installed (see the README).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from '../mastra.config.ts';

const ROOT = join(import.meta.dirname, '..');

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function dockerfileInstructions(): Array<{ keyword: string; args: string }> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n');
  return lines
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

/** Names set by ENV lines (`ENV A=1 B=2`). */
function envNames(instructions: ReturnType<typeof dockerfileInstructions>) {
  return instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => [...i.args.matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((m) => m[1]!));
}

describe('Dockerfile', () => {
  const instructions = dockerfileInstructions();
  const stages = instructions.filter((i) => i.keyword === 'FROM');
  const runtime = instructions.slice(instructions.lastIndexOf(stages.at(-1)!));

  it('builds in one stage and runs the built output in another', () => {
    expect(stages).toHaveLength(2);
    expect(stages[0]!.args).toMatch(/ AS build$/);
    expect(instructions.some((i) => i.keyword === 'RUN' && i.args === 'npm run build')).toBe(true);
    expect(runtime.some((i) => i.keyword === 'COPY' && i.args.includes('--from=build') && i.args.includes('/app/.mastra/output'))).toBe(true);
    expect(runtime.find((i) => i.keyword === 'CMD')?.args).toBe('["node", "index.mjs"]');
  });

  it('has the dependency patches in place when npm install runs, so the build bundles patched code', () => {
    const install = instructions.findIndex((i) => i.keyword === 'RUN' && i.args.startsWith('npm install'));
    const patches = instructions.findIndex((i) => i.keyword === 'COPY' && /^patches\s/.test(i.args));
    expect(install).toBeGreaterThan(-1);
    expect(patches).toBeGreaterThan(-1);
    expect(patches).toBeLessThan(install);
  });

  it('runs as a non-root user, listens on every interface, keeps data on a volume', () => {
    const user = runtime.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const env = runtime.filter((i) => i.keyword === 'ENV').map((i) => i.args).join(' ');
    expect(env).toContain('HOST=0.0.0.0');
    expect(env).toContain('DATA_DIR=/app/data');
    expect(runtime.find((i) => i.keyword === 'VOLUME')?.args).toBe('["/app/data"]');
  });

  it('runs the service under tini: as PID 1, Node would ignore a stop signal while it loads, and reap no orphaned decoder', () => {
    expect(runtime.find((i) => i.keyword === 'ENTRYPOINT')?.args).toBe('["/usr/bin/tini", "--"]');
    const installs = runtime.filter((i) => i.keyword === 'RUN' && i.args.includes('apt-get install')).map((i) => i.args);
    expect(installs.join(' ').split(/\s+/)).toContain('tini');
  });

  it('probes /health', () => {
    const healthcheck = runtime.find((i) => i.keyword === 'HEALTHCHECK');
    expect(healthcheck?.args).toMatch(/CMD .*\/health/);
  });

  it('installs the speech-to-text system packages', () => {
    const installs = runtime.filter((i) => i.keyword === 'RUN' && i.args.includes('apt-get install')).map((i) => i.args);
    expect(installs.join(' ').split(/\s+/)).toEqual(expect.arrayContaining(['pocketsphinx', 'pocketsphinx-en-us', 'ffmpeg']));
  });

  it('sets only settings the service reads', () => {
    expect(envNames(instructions)).toContain('NODE_ENV');
    for (const name of envNames(instructions)) expect(CONFIG_KEYS).toContain(name);
  });
});

describe('compose.yaml', () => {
  const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'));
  const { postgres, companion } = compose.services;

  it('runs PostgreSQL with a health check the service waits for', () => {
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(compose.volumes).toHaveProperty('postgres-data');
    expect(companion.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('runs two replicas of the image built from this Dockerfile, on that database', () => {
    expect(companion.build).toBe('.');
    expect(companion.deploy.replicas).toBe(2);
    const { POSTGRES_USER, POSTGRES_DB } = postgres.environment;
    expect(companion.environment.DATABASE_URL).toBe(
      `postgres://${POSTGRES_USER}:\${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@postgres:5432/${POSTGRES_DB}`,
    );
  });

  it('takes the secrets from the environment, refusing to start without them', () => {
    expect(postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    expect(companion.environment.MASTRA_JWT_SECRET).toMatch(/^\$\{MASTRA_JWT_SECRET:\?/);
  });

  it('passes the service only settings it reads', () => {
    for (const name of Object.keys(companion.environment)) expect(CONFIG_KEYS).toContain(name);
  });
});
