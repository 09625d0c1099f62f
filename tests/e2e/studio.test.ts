/**
 * Mastra Studio in a real browser: `npm run dev` as a newcomer runs it (in a copy
 * of the project, against the OpenAI and Open-Meteo stand-ins), Debian's Chromium
 * driven by playwright-core. A turn with a weather tool call streams into the chat,
 * then shows up on the Traces page with its spans. A screenshot of each page is kept.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferred, startOpenAIStandIn, type OpenAIStandIn } from '../fixtures/openai-stand-in.ts';
import { startOpenMeteoStandIn, type OpenMeteoStandIn } from '../fixtures/open-meteo-stand-in.ts';
import { freePort } from '../fixtures/service.ts';
import { copyProject, isolatedEnv, runCommand, waitForHttp, type ProjectCopy, type RunningCommand } from './fixtures/project-copy.ts';
import { standInEnv } from '../fixtures/stand-in-env.ts';

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
  project = copyProject();
  const port = await freePort();
  studio = `http://127.0.0.1:${port}`;
  dev = runCommand('npm', ['run', 'dev'], {
    cwd: project.root,
    env: isolatedEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      ...standInEnv(model, weather),
    }),
  });
  // Bundling the project is most of this: minutes on a busy machine.
  await waitForHttp(`${studio}/health`, dev, 400_000);
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

async function screenshot(name: string) {
  const path = join(screenshots, `${name}.png`);
  // Finished animations: an expanding panel is shown open.
  await page.screenshot({ path, animations: 'disabled' });
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
});
