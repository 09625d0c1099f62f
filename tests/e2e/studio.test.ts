/**
 * Mastra Studio in a real browser: `npm run dev` as a newcomer runs it (in a copy
 * of the project, against the OpenAI and Open-Meteo stand-ins), Debian's Chromium
 * driven by playwright-core. A turn with a weather tool call streams into the chat,
 * then shows up on the Traces page with its spans. With auth on (a second `npm run dev`
 * with `MASTRA_JWT_SECRET`), Studio gets nothing without a token, and chats once its user
 * gives it one in Studio's own form. A screenshot of each page is kept.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferred, startOpenAIStandIn, type OpenAIStandIn } from '../fixtures/openai-stand-in.ts';
import { startOpenMeteoStandIn, type OpenMeteoStandIn } from '../fixtures/open-meteo-stand-in.ts';
import { freePort } from '../fixtures/service.ts';
import { copyProject, isolatedEnv, runCommand, waitForHttp, type ProjectCopy, type RunningCommand } from './fixtures/project-copy.ts';
import { standInEnv } from '../fixtures/stand-in-env.ts';
import { requireSpeechTools, speech } from '../fixtures/speech.ts';
import { hs256 } from '../fixtures/tokens.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

let project: ProjectCopy;
let model: OpenAIStandIn;
let weather: OpenMeteoStandIn;
let dev: RunningCommand;
let studio: string;
let browser: BrowserContext;
let page: Page;
const screenshots = mkdtempSync(join(tmpdir(), 'companion-studio-shots-'));

beforeAll(async () => {
  // Never skipped: on CI a missing browser is a broken install step (.ci/run installs Debian's chromium).
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium (on CI, .ci/run does this)`);
  [model, weather] = await Promise.all([startOpenAIStandIn(), startOpenMeteoStandIn()]);
  // The local speech engine too: its worker must be found from the bundle mastra dev runs.
  ({ project, dev, url: studio } = await startStudio({ STT_PROVIDER: 'local' }));
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'companion-chromium-')), {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  // Studio looks for package updates on the internet; nothing here may leave the machine.
  await browser.route((url) => !LOOPBACK.has(url.hostname), (route) => route.abort());
  page = browser.pages()[0] ?? (await browser.newPage());
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  await Promise.all([model?.close(), weather?.close()]);
  project?.remove();
  console.log(`Studio screenshots: ${screenshots}`);
});

/** `npm run dev` in its own copy of the project, against the stand-ins, with `env` on top. */
async function startStudio(env: Record<string, string> = {}) {
  const copy = copyProject();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const command = runCommand('npm', ['run', 'dev'], {
    cwd: copy.root,
    env: isolatedEnv({ PORT: String(port), HOST: '127.0.0.1', ...standInEnv(model, weather), ...env }),
  });
  // Bundling the project is most of this: minutes on a busy machine.
  await waitForHttp(`${url}/health`, command, 400_000);
  return { project: copy, dev: command, url };
}

async function screenshot(name: string, shown = page) {
  const path = join(screenshots, `${name}.png`);
  // Finished animations: an expanding panel is shown open.
  await shown.screenshot({ path, animations: 'disabled' });
  return path;
}

describe('Mastra Studio under npm run dev', () => {
  it('streams a reply with its weatherTool call into the chat', async () => {
    model.script(
      { toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] },
      { text: ['It is mild', ' in Paris today.'] },
    );
    // The reply's second piece waits until the browser shows the first: the chat is live, not a final render.
    const firstPieceShown = deferred();
    model.beforeChunk = (chunkIndex) => (model.requests.length === 2 && chunkIndex === 1 ? firstPieceShown.promise : undefined);

    await page.goto(`${studio}/agents/companionAgent/threads/new`);
    await page.getByPlaceholder('Enter your message...').fill('What is the weather in Paris?');
    await page.getByRole('button', { name: 'Send' }).click();

    await page.getByText('It is mild', { exact: true }).waitFor();
    expect(await page.getByText('It is mild in Paris today.').count()).toBe(0);
    firstPieceShown.resolve();
    await page.getByText('It is mild in Paris today.').waitFor();
    await page.getByText('WeatherTool').first().waitFor();
    expect(weather.requests.map((r) => r.path)).toContain('/v1/forecast');
    console.log(`chat: ${await screenshot('chat')}`);
  });

  it('shows the turn on the Traces page, with the tool call among its timed spans', async () => {
    await page.goto(`${studio}/traces`);
    // Spans reach the trace store in batches, a few seconds after the turn: the page refreshes itself.
    const row = page.getByText('companionAgent', { exact: true }).first();
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    await page.getByText("tool: 'weatherTool'").waitFor();
    await page.getByText("agent run: 'companionAgent'").waitFor();
    await page.getByText("llm: 'stand-in-model'").waitFor();
    console.log(`trace: ${await screenshot('trace')}`);
  }, 90_000);

  it("shows a failed tool call's own message, not [object Object]", async () => {
    model.beforeChunk = undefined;
    model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Atlantis' } }] }, { text: 'I could not find Atlantis.' });
    await page.goto(`${studio}/agents/companionAgent/threads/new`);
    await page.getByPlaceholder('Enter your message...').fill('What is the weather in Atlantis?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('I could not find Atlantis.').waitFor();
    await page.getByText('WeatherTool').first().click();
    await page.getByText('Location "Atlantis" was not found').waitFor();
    expect(await page.getByText('[object Object]').count()).toBe(0);
    console.log(`tool error: ${await screenshot('tool-error')}`);
  });

  it('keeps the conversation in the project root, never in the folder mastra dev runs in', () => {
    expect(existsSync(join(project.root, 'data', 'companion.db'))).toBe(true);
    expect(existsSync(join(project.root, 'data', 'traces.duckdb'))).toBe(true);
    expect(existsSync(join(project.root, 'src', 'mastra', 'public', 'data'))).toBe(false);
  });

  it('transcribes speech with the local engine under npm run dev', async () => {
    await requireSpeechTools();
    const said = 'what is the weather in paris today';
    const form = new FormData();
    form.append('audio', new Blob([await readFile(await speech(said, 'wav'))], { type: 'audio/wav' }), 'memo.wav');
    const response = await fetch(`${studio}/stt`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ transcript: said, success: true, engine: 'local' });
  });
});

describe('Mastra Studio under npm run dev with auth on (MASTRA_JWT_SECRET)', () => {
  const SECRET = 'a-studio-test-secret-of-at-least-32-characters';
  let secured: Awaited<ReturnType<typeof startStudio>>;
  let token: string;
  let securedPage: Page;

  beforeAll(async () => {
    secured = await startStudio({ MASTRA_JWT_SECRET: SECRET });
    token = await hs256({ sub: 'studio-user' }, { secret: SECRET, expiresIn: '1h' });
    // Another origin (port) than the first Studio: its own saved settings, no headers yet.
    securedPage = await browser.newPage();
  }, 480_000);

  afterAll(async () => {
    await securedPage?.close();
    await secured?.dev.stop();
    secured?.project.remove();
  });

  it('gets nothing from the API without a token, and asks for one', async () => {
    const agentList = securedPage.waitForResponse((r) => new URL(r.url()).pathname === '/api/agents');
    await securedPage.goto(`${secured.url}/agents/companionAgent/threads/new`);
    expect((await agentList).status()).toBe(401);
    await securedPage.getByText('Authentication Required').waitFor();
    expect(await securedPage.getByPlaceholder('Enter your message...').count()).toBe(0);
    console.log(`auth required: ${await screenshot('auth-required', securedPage)}`);
  });

  it('streams a reply once given the token in its form, on a thread owned by the token\'s subject', async () => {
    await securedPage.getByRole('button', { name: 'Add Header' }).click();
    // Studio's labels are not tied to their inputs; the placeholders are what a user reads.
    await securedPage.getByPlaceholder('e.g. Authorization').fill('Authorization');
    await securedPage.getByPlaceholder('e.g. Bearer <token>').fill(`Bearer ${token}`);
    await securedPage.getByRole('button', { name: 'Save Headers' }).click();

    model.script({ text: ['Hello,', ' studio user.'] });
    const firstPieceShown = deferred();
    const requestsBefore = model.requests.length;
    model.beforeChunk = (chunkIndex) => (model.requests.length === requestsBefore + 1 && chunkIndex === 1 ? firstPieceShown.promise : undefined);
    const turn = securedPage.waitForResponse((r) => /^\/api\/agents\/companionAgent\/(send-message|stream|generate)$/.test(new URL(r.url()).pathname));
    await securedPage.getByPlaceholder('Enter your message...').fill('Hi there');
    await securedPage.getByRole('button', { name: 'Send' }).click();

    const turnResponse = await turn;
    expect(turnResponse.status()).toBe(200);
    expect(turnResponse.request().headers().authorization).toBe(`Bearer ${token}`);
    await securedPage.getByText('Hello,', { exact: true }).waitFor();
    expect(await securedPage.getByText('Hello, studio user.').count()).toBe(0);
    firstPieceShown.resolve();
    // Studio may show a second copy of the reply for a moment (seen once in a run): it must settle at one.
    await securedPage.getByText('Hello, studio user.').first().waitFor();
    await expect.poll(() => securedPage.getByText('Hello, studio user.').count()).toBe(1);
    console.log(`auth chat: ${await screenshot('auth-chat', securedPage)}`);

    // The token's subject owns the conversation Studio started.
    const threads = await fetch(`${secured.url}/threads`, { headers: { authorization: `Bearer ${token}` } });
    expect(threads.status).toBe(200);
    const listed = (await threads.json()) as { threads: Array<{ id: string; resourceId: string }> };
    expect(listed.threads.map((t) => t.resourceId)).toEqual(['studio-user']);
    const stored = await fetch(`${secured.url}/threads/${listed.threads[0].id}/messages`, { headers: { authorization: `Bearer ${token}` } });
    // Stored once each.
    const { messages } = (await stored.json()) as { messages: Array<{ content: string }> };
    expect(messages.map((m) => m.content)).toEqual(['Hi there', 'Hello, studio user.']);
    expect((await fetch(`${secured.url}/threads`)).status).toBe(401);
  });

  it('keeps the token in Settings → Mastra Connection → Headers, where it can be replaced', async () => {
    await securedPage.goto(`${secured.url}/settings`);
    await securedPage.getByText('Mastra Connection').waitFor();
    const values = await securedPage.locator('input[name^="headers."]').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    expect(values).toEqual(['Authorization', `Bearer ${token}`]);
    await securedPage.getByRole('button', { name: 'Save Configuration' }).waitFor();
  });
});
