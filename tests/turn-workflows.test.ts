/**
 * What Mastra runs for a stored turn beyond the agent's own workflows: nothing.
 * - Memory's processors (and the agent's) run as they are in Mastra's ProcessorRunner, not as a
 *   workflow built for every turn with a step per processor and phase.
 * - The agent's workflows publish no step events: no one watches them step by step (their result
 *   and the stream carry the turn), as in Mastra's own durable agent.
 * - The model call's workflow has no step that would hand its input on untouched: no goal, no
 *   completion scorers and no background tasks are configured, so their steps are not built.
 * - The workflows and steps built for every run share their unchanging schemas instead of building them anew.
 * - Without tracing, a turn's preparation (its tools, its memory, their mapping, then the model's stream) runs its steps
 *   in the order its workflow would, without building and running that workflow: with no snapshot, no step event, no
 *   input validation and no span, the engine adds nothing they use. With tracing on, they run in it, as stock.
 * - The primitives built for every run (its model, its streams, its workflows) share one child logger per component
 *   instead of each making a pino child of its own.
 * - A SPEC stream is not registered with Mastra's thread-run runtime (thread subscriptions, signals, aborts by
 *   thread, none of which production serves): the turn lock orders a thread's turns. A native stream still is.
 * All are patches of @mastra/core (patches/@mastra+core+1.71.0.patch), for the CPU they cost per turn.
 */
import { Agent } from '@mastra/core/agent';
import { EventEmitterPubSub } from '@mastra/core/events';
import { Workflow } from '@mastra/core/workflows';
import { PinoLogger } from '@mastra/loggers';
import { afterAll, beforeAll, beforeEach, expect, it, vi, type MockInstance } from 'vitest';
import { COMPANION_AGENT_ID } from '../src/contract/paths.ts';
import { createCompanionModel } from '../src/mastra/model.ts';
import { GENERATE, STREAM, conversationOf, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { NATIVE } from './fixtures/spec-requests.ts';
import { readAnswer, readUntilFrame, sseFrames } from './fixtures/sse.ts';
import { storedMessages } from './fixtures/stored-messages.ts';

let h: AppHarness;
/** Every workflow run created; the workflow is the call's `this`. */
let workflowRuns: MockInstance;
/** Every event published in process, by topic (a workflow run publishes on a pubsub of its own, not the Mastra instance's). */
let published: MockInstance;
/** Every workflow committed (built); the workflow is the call's `this`. */
let workflowsBuilt: MockInstance;
beforeAll(async () => {
  workflowRuns = vi.spyOn(Workflow.prototype, 'createRun');
  workflowsBuilt = vi.spyOn(Workflow.prototype, 'commit');
  published = vi.spyOn(EventEmitterPubSub.prototype, 'publish');
  h = await startApp();
});
afterAll(async () => {
  await h.close();
  workflowRuns.mockRestore();
  published.mockRestore();
  workflowsBuilt.mockRestore();
});
beforeEach(() => h.reset());

type ThreadIds = { threadId: string; resourceId: string };

/** One turn of `question` on the thread `ids`, answered (200) and read to its end. */
async function answeredTurn(path: string, question: string, ids: ThreadIds) {
  const response = await h.post(path, { ...userSays(question), ...ids });
  expect(response.status).toBe(200);
  await readAnswer(response);
}

const runWorkflowIds = () => workflowRuns.mock.contexts.map((workflow) => (workflow as Workflow).id);
const publishedTopics = () => published.mock.calls.map(([topic]) => String(topic));

it.each([GENERATE, STREAM])('%s: a turn with a tool call runs no processor workflow and publishes no step event, and its processors still do their work', async (path) => {
  const ids = { threadId: `machinery${path === STREAM ? '-stream' : ''}`, resourceId: 'ada' };
  h.model.script(
    { toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] },
    { text: 'Mild in Paris.' },
    { text: 'You asked about Paris.' },
  );

  for (const question of ['Weather in Paris?', 'What did I ask?']) {
    workflowRuns.mockClear();
    published.mockClear();
    await answeredTurn(path, question, ids);
    // The agent's own workflows run; none built from processors does, and none reports its steps.
    expect(runWorkflowIds().length).toBeGreaterThan(0);
    expect(runWorkflowIds().filter((id) => id.endsWith('-processor'))).toEqual([]);
    expect(publishedTopics().filter((topic) => topic.startsWith('workflow.events') || topic === 'nested-watch')).toEqual([]);
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

/** The entries of a built workflow, each by its step's id, or its kind for a mapping or a loop over a step. */
function stepIdsOf(workflow: Workflow) {
  return workflow.serializedStepGraph.map((entry) => {
    if (entry.type === 'step') return entry.step.id;
    if (entry.type === 'foreach') return `foreach ${entry.step.type === 'step' ? entry.step.step.id : entry.step.type}`;
    return entry.type;
  });
}

it.each([GENERATE, STREAM])('%s: each model call runs in a workflow of the steps it needs, and a turn with a tool call still completes', async (path) => {
  const ids = { threadId: `steps${path === STREAM ? '-stream' : ''}`, resourceId: 'ada' };
  h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'Mild in Paris.' });
  workflowsBuilt.mockClear();

  await answeredTurn(path, 'Weather in Paris?', ids);

  const executionWorkflows = workflowsBuilt.mock.contexts.filter((workflow) => (workflow as Workflow).id === 'executionWorkflow');
  expect(executionWorkflows).toHaveLength(1);
  expect(stepIdsOf(executionWorkflows[0] as Workflow)).toEqual([
    'llm-execution',
    'mapping',
    'foreach toolCallStep',
    'llmExecutionMappingStep',
    'signalDrainStep',
  ]);
  // Both model calls ran, the tool's result reached the second, and the turn is stored.
  expect(h.model.requests).toHaveLength(2);
  expect(conversationOf(h.model.requests[1]!).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  expect(await storedMessages(await h.store(), ids.threadId)).toEqual([
    ['user', 'Weather in Paris?'],
    ['assistant', 'Mild in Paris.'],
  ]);
});

it.each([GENERATE, STREAM])('%s: without tracing, a turn builds and runs no workflow to prepare its model call, and its preparation still does its work', async (path) => {
  const ids = { threadId: `prepare${path === STREAM ? '-stream' : ''}`, resourceId: 'ada' };
  h.model.script({ text: 'Hello to you.' }, { text: 'You said hello.' });

  for (const question of ['Hello', 'What did I say?']) {
    workflowRuns.mockClear();
    workflowsBuilt.mockClear();
    await answeredTurn(path, question, ids);
    expect(runWorkflowIds()).not.toContain('execution-workflow');
    expect(workflowsBuilt.mock.contexts.map((workflow) => (workflow as Workflow).id)).not.toContain('execution-workflow');
  }

  // The tools were offered (memory's too), the history was loaded for the second turn, and both turns are stored.
  expect([...h.model.requests[1]!.toolNames].sort()).toEqual(['spiritualDestinationsTool', 'updateWorkingMemory', 'weatherTool']);
  expect(conversationOf(h.model.requests[1]!).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  expect(await storedMessages(await h.store(), ids.threadId)).toEqual([
    ['user', 'Hello'],
    ['assistant', 'Hello to you.'],
    ['user', 'What did I say?'],
    ['assistant', 'You said hello.'],
  ]);
});

it.each(['generate', 'stream'] as const)("without tracing, an input processor's abort still ends an agent's %s with its tripwire, before any model call", async (method) => {
  const agent = new Agent({
    id: 'guarded',
    name: 'Guarded',
    instructions: 'Be kind.',
    model: createCompanionModel(h.config.model),
    inputProcessors: [{ id: 'guard', processInput: ({ abort }) => abort('Not today.', { metadata: { rule: 'calm' } }) }],
  });

  const result = method === 'generate' ? await agent.generate('Hello') : await (await agent.stream('Hello')).getFullOutput();

  expect(result.tripwire).toMatchObject({ reason: 'Not today.', processorId: 'guard', metadata: { rule: 'calm' } });
  expect(h.model.requests).toHaveLength(0);
});

it("two turns share the unchanging schemas: a run builds no zod schema of its own for its model call's workflow and steps", async () => {
  const ids = { threadId: 'shared-schemas', resourceId: 'ada' };
  const builtFor = async (question: string) => {
    h.model.script({ text: 'Hello to you.' });
    workflowsBuilt.mockClear();
    await answeredTurn(GENERATE, question, ids);
    return workflowsBuilt.mock.contexts as Workflow[];
  };
  const schemasOf = (workflows: Workflow[]) => {
    const model = workflows.find((workflow) => workflow.id === 'executionWorkflow')!;
    const steps = model.steps as Record<string, { inputSchema?: unknown; outputSchema?: unknown }>;
    const stepSchemas = ['llmExecutionMappingStep', 'map-tool-calls'].flatMap((id) => {
      expect(steps[id], id).toBeDefined();
      return [steps[id]!.inputSchema, steps[id]!.outputSchema];
    });
    return [model.inputSchema, model.outputSchema, ...stepSchemas];
  };

  const first = schemasOf(await builtFor('Hello'));
  const second = schemasOf(await builtFor('Hello again'));
  second.forEach((schema, i) => expect(schema, `schema ${i}`).toBe(first[i]));
});

it.each([GENERATE, STREAM])('%s: a turn makes no logger of its own: its model, streams and workflows log through one child per component', async (path) => {
  const ids = { threadId: `loggers${path === STREAM ? '-stream' : ''}`, resourceId: 'ada' };
  h.model.script({ text: 'Hello to you.' }, { text: 'Hello again to you.' });
  await answeredTurn(path, 'Hello', ids);
  const childLoggers = vi.spyOn(PinoLogger.prototype, 'child');
  try {
    await answeredTurn(path, 'Hello again', ids);
    expect(childLoggers).not.toHaveBeenCalled();
  } finally {
    childLoggers.mockRestore();
  }
});

it.each([
  { protocol: 'SPEC', headers: {}, body: (ids: ThreadIds) => ({ ...userSays('Hi'), ...ids }), registered: false },
  {
    protocol: 'native',
    headers: NATIVE,
    body: ({ threadId, resourceId }: ThreadIds) => ({ ...userSays('Hi'), memory: { thread: threadId, resource: resourceId } }),
    registered: true,
  },
])("a $protocol stream's run, while it streams, is registered with Mastra's thread-run runtime: $registered", async ({ protocol, headers, body, registered }) => {
  const ids = { threadId: `thread-run-${protocol}`, resourceId: 'ada' };
  const secondChunk = deferred();
  h.model.script({ text: ['chunk 1', 'chunk 2'] });
  h.model.beforeChunk = (index) => (index === 1 ? secondChunk.promise : undefined);

  const response = await h.post(STREAM, body(ids), headers);
  expect(response.status).toBe(200);
  const frames = sseFrames(response);
  await readUntilFrame(frames, (frame) => frame.includes('chunk 1'), 'chunk 1');
  const activeRun = h.mastra.getAgent(COMPANION_AGENT_ID).getActiveThreadRunId(ids);
  secondChunk.resolve();
  const rest: string[] = [];
  for await (const frame of frames) rest.push(frame);

  expect(activeRun !== undefined).toBe(registered);
  expect(rest.some((frame) => frame.includes('chunk 2'))).toBe(true);
  expect(await storedMessages(await h.store(), ids.threadId)).toEqual([
    ['user', 'Hi'],
    ['assistant', 'chunk 1chunk 2'],
  ]);
});
