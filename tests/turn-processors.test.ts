/**
 * A stored turn runs memory's processors (and the agent's own) as they are, in Mastra's
 * ProcessorRunner: it builds and runs no processor workflow, which would cost more per turn
 * than the processors themselves (patches/@mastra+core+1.71.0.patch, `processorsForTurn`).
 */
import { Workflow } from '@mastra/core/workflows';
import { afterAll, beforeAll, beforeEach, expect, it, vi, type MockInstance } from 'vitest';
import { GENERATE, STREAM, conversationOf, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { readFrames } from './fixtures/sse.ts';
import { storedMessages } from './fixtures/stored-messages.ts';

let h: AppHarness;
/** Every workflow run created, by workflow id. */
let workflowRuns: MockInstance;
beforeAll(async () => {
  workflowRuns = vi.spyOn(Workflow.prototype, 'createRun');
  h = await startApp();
});
afterAll(async () => {
  await h.close();
  workflowRuns.mockRestore();
});
beforeEach(() => h.reset());

const runWorkflowIds = () => workflowRuns.mock.contexts.map((workflow) => (workflow as Workflow).id);

it.each([GENERATE, STREAM])('%s: a turn with a tool call runs no processor workflow, and its processors still do their work', async (path) => {
  const ids = { threadId: `processors${path === STREAM ? '-stream' : ''}`, resourceId: 'ada' };
  h.model.script(
    { toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] },
    { text: 'Mild in Paris.' },
    { text: 'You asked about Paris.' },
  );

  for (const question of ['Weather in Paris?', 'What did I ask?']) {
    workflowRuns.mockClear();
    const response = await h.post(path, { ...userSays(question), ...ids });
    expect(response.status).toBe(200);
    if (path === STREAM) await readFrames(response);
    else await response.json();
    // The agent's own workflows run; none built from processors does.
    expect(runWorkflowIds().length).toBeGreaterThan(0);
    expect(runWorkflowIds().filter((id) => id.endsWith('-processor'))).toEqual([]);
  }

  // Memory's processors ran: the history reached the model and both turns are stored.
  expect(conversationOf(h.model.requests[2]!).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  expect(await storedMessages(await h.store(), ids.threadId)).toEqual([
    ['user', 'Weather in Paris?'],
    ['assistant', 'Mild in Paris.'],
    ['user', 'What did I ask?'],
    ['assistant', 'You asked about Paris.'],
  ]);
});
