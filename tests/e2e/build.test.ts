/**
 * `npm run build` as an operator runs it (in a copy of the project): the build
 * ships no data, prints no telemetry errors, and its output is the service —
 * started the documented way, it answers the probes and a turn, on the same
 * database as `npm start`, transcribes speech with the local engine, and runs
 * from a copy of the output alone, as a container holds it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIStandIn, type OpenAIStandIn } from '../fixtures/openai-stand-in.ts';
import { startOpenMeteoStandIn, type OpenMeteoStandIn } from '../fixtures/open-meteo-stand-in.ts';
import { freePort } from '../fixtures/service.ts';
import { GENERATE } from '../fixtures/companion-harness.ts';
import { copyProject, isolatedEnv, runCommand, waitForHttp, type ProjectCopy, type RunningCommand } from './fixtures/project-copy.ts';
import { standInEnv } from '../fixtures/stand-in-env.ts';
import { requireSpeechTools, speech } from '../fixtures/speech.ts';

let project: ProjectCopy;
let model: OpenAIStandIn;
let weather: OpenMeteoStandIn;
let build: RunningCommand | undefined;
let buildOutput = '';
let buildExitCode: number | null | 'timed out';

const output = () => join(project.root, '.mastra', 'output');

async function serviceEnv(extra: Record<string, string>) {
  const port = await freePort();
  const env = isolatedEnv({
    ...standInEnv(model, weather),
    LOG_LEVEL: 'warn',
    ...extra,
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  return { env, url: `http://127.0.0.1:${port}` };
}

/** Runs `node <entry>` in `cwd` until `use` is done with it. */
async function withService(entry: string, cwd: string, use: (url: string) => Promise<void>, extraEnv: Record<string, string> = {}) {
  const { env, url } = await serviceEnv(extraEnv);
  const service = runCommand('node', [entry], { cwd, env });
  try {
    await waitForHttp(`${url}/health`, service, 60_000);
    await use(url);
  } finally {
    await service.stop();
  }
}

/** Every file of the build output outside its installed node_modules, relative to the output folder. */
function shippedFiles(dir = output()): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : [`${relative(output(), path)}/`, ...shippedFiles(path)];
    return [relative(output(), path)];
  });
}

beforeAll(async () => {
  [model, weather] = await Promise.all([startOpenAIStandIn(), startOpenMeteoStandIn()]);
  project = copyProject();
  // A developer's data, left the way `mastra dev` runs the service: from src/mastra/public, tracing on.
  const publicDir = join(project.root, 'src', 'mastra', 'public');
  mkdirSync(publicDir, { recursive: true });
  await withService(join(project.root, 'src', 'server.ts'), publicDir, async (url) => {
    expect((await fetch(`${url}/ready`)).status).toBe(200);
  }, { TRACING: 'on' });
  build = runCommand('npm', ['run', 'build'], { cwd: project.root, env: isolatedEnv({}) });
  // Bundling and installing the output's dependencies: minutes on a busy machine.
  const deadline = new Promise<'timed out'>((resolve) => setTimeout(resolve, 480_000, 'timed out').unref());
  buildExitCode = await Promise.race([build.exited, deadline]);
  buildOutput = build.output();
}, 600_000);

afterAll(async () => {
  await build?.stop();
  await Promise.all([model?.close(), weather?.close()]);
  project?.remove();
});

describe('npm run build', () => {
  it('builds, without a telemetry error', () => {
    expect(buildExitCode, buildOutput).toBe(0);
    // With telemetry on, and no way out, the CLI prints "Error while flushing PostHog …". npm echoes the
    // script itself (`> MASTRA_TELEMETRY_DISABLED=1 mastra build`); nothing else may mention either.
    const mentions = buildOutput.split('\n').filter((line) => /telemetry|posthog/i.test(line) && !line.startsWith('> '));
    expect(mentions).toEqual([]);
  });

  it('ships no data: the database stays in the project root and no data file is in the output', () => {
    expect(existsSync(join(project.root, 'data', 'companion.db'))).toBe(true);
    expect(existsSync(join(project.root, 'data', 'traces.duckdb'))).toBe(true);
    const files = shippedFiles();
    expect(files).toContain('index.mjs');
    expect(files.filter((file) => /(^|\/)data\/|\.db$|\.db-|\.duckdb/.test(file))).toEqual([]);
  });

  it("carries every dependency patch in the output's own node_modules (mastra build installs them stock)", () => {
    const patches = readdirSync(join(project.root, 'patches')).filter((file) => file.endsWith('.patch'));
    expect(patches.length).toBeGreaterThan(0);
    for (const patchFile of patches) {
      // Reversing applies cleanly only where the patch is in place.
      const reversed = spawnSync('patch', ['--dry-run', '-R', '-p1', '-d', output(), '-i', join(project.root, 'patches', patchFile)], { encoding: 'utf8' });
      expect(reversed.status, `${patchFile}: ${reversed.stdout}${reversed.stderr}`).toBe(0);
    }
  });

  it('starts with `node .mastra/output/index.mjs` from any folder, answers /health and a turn, on the project database', async () => {
    model.script({ text: 'Hello from the built service.' });
    await withService(join(output(), 'index.mjs'), output(), async (url) => {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      const turn = await fetch(url + GENERATE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }], threadId: 'built', resourceId: 'ops' }),
      });
      expect(turn.status).toBe(200);
      expect((await turn.json()).text).toBe('Hello from the built service.');
    });
    // `npm start` (the source) sees the thread the built output stored: one database for both.
    await withService(join(project.root, 'src', 'server.ts'), project.root, async (url) => {
      const thread = await fetch(`${url}/threads/built?resourceId=ops`);
      expect(thread.status).toBe(200);
      expect(await thread.json()).toMatchObject({ id: 'built', resourceId: 'ops' });
    });
  });

  it('transcribes speech with the local engine: its PocketSphinx worker ships in the output and runs from there', async () => {
    await requireSpeechTools();
    const said = 'what is the weather in paris today';
    const audio = new Blob([await readFile(await speech(said, 'wav'))], { type: 'audio/wav' });
    await withService(join(output(), 'index.mjs'), output(), async (url) => {
      const form = new FormData();
      form.append('audio', audio, 'memo.wav');
      const response = await fetch(`${url}/stt`, { method: 'POST', body: form });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ transcript: said, success: true, engine: 'local', language: 'en' });
    }, { STT_PROVIDER: 'local' });
  });
  it('runs from a copy of the output alone, as a container holds it: /docs has its Swagger UI', async () => {
    // Hard links: the same files at another path, with no project (and no project node_modules) around them.
    const copy = mkdtempSync(join(tmpdir(), 'companion-output-'));
    execFileSync('cp', ['-al', `${output()}/.`, copy]);
    try {
      await withService(join(copy, 'index.mjs'), copy, async (url) => {
        expect((await fetch(`${url}/docs`)).status).toBe(200);
        for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js']) expect((await fetch(`${url}/docs/${asset}`)).status, asset).toBe(200);
      }, { DATA_DIR: join(copy, 'data') });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('starts with the empty settings .env.example has (and compose passes): empty means the default', async () => {
    await withService(join(output(), 'index.mjs'), output(), async (url) => {
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).checks.model).toEqual({ ok: true, detail: 'gpt-4o-mini via the Chat Completions API' });
    }, { OPENAI_BASE_URL: '', OPENAI_API_KEY: 'sk-test', STT_PROVIDER: '', STT_BASE_URL: '', MODEL: '' });
  });
});
