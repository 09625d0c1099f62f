import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DESTINATIONS } from '../src/mastra/tools/destination-catalogue.ts';
import { GENERATE, STREAM, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { weatherAt, weatherToolResultAt } from './fixtures/open-meteo-stand-in.ts';
import { eventsOf, readFrames, toolThenTextOrder } from './fixtures/sse.ts';

let h: AppHarness;
beforeAll(async () => {
  h = await startApp();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const METEORA = DESTINATIONS.find((destination) => destination.id === 'meteora')!;

/** The JSON the agent sent back to the model for its n-th tool call. */
function toolMessage(requestIndex: number) {
  const message = h.model.requests[requestIndex].messages.find((m) => m.role === 'tool');
  return JSON.parse(message!.content);
}

describe('spiritual destinations through POST /generate', () => {
  it('answers a request with catalogue places the model then reads', async () => {
    h.model.script(
      { toolCalls: [{ name: 'spiritualDestinationsTool', args: { query: 'silent meditation retreat in Thailand' } }] },
      { text: 'Suan Mokkh holds ten-day silent retreats every month.' },
    );

    const response = await h.post(GENERATE, userSays('Where can I do a silent retreat in Thailand?'));
    const body = await response.json();

    expect(response.status).toBe(200);
    expect(body.text).toBe('Suan Mokkh holds ten-day silent retreats every month.');
    expect(body.toolCalls).toEqual([
      { toolCallId: 'call_1', toolName: 'spiritualDestinationsTool', args: { query: 'silent meditation retreat in Thailand' }, providerMetadata: {} },
    ]);
    const [{ result }] = body.toolResults;
    expect(result.destinations.map((d: { id: string }) => d.id)).toEqual(['suan-mokkh']);
    expect(result.understood.criteria).toEqual(['thailand', 'silent', 'meditation', 'retreat']);
    expect(toolMessage(1)).toEqual(result);
    expect(h.weather.requests).toEqual([]);
  });

  it('gives the agent the catalogue rules in every voice', async () => {
    h.model.script({ text: 'ok' });
    await h.post(GENERATE, { ...userSays('Hi'), runtimeContext: { metadata: { personality: 'wanderer' } } });
    const instructions = h.model.requests[0].messages[0].content;
    expect(instructions).toContain('spiritualDestinationsTool');
    expect(instructions).toContain("the catalogue's latitude and longitude");
    expect(instructions).toContain('which places came from the catalogue');
  });

  it('checks the weather at a catalogue destination with its own coordinates', async () => {
    h.model.script(
      { toolCalls: [{ name: 'spiritualDestinationsTool', args: { query: 'monastery in Greece on rock pillars', limit: 1 } }] },
      {
        toolCalls: [
          { name: 'weatherTool', args: { location: METEORA.name, latitude: METEORA.latitude, longitude: METEORA.longitude } },
        ],
      },
      { text: 'Meteora it is; pack a light jacket.' },
    );

    const body = await (await h.post(GENERATE, userSays('I want to visit a Greek monastery. What is the weather there?'))).json();

    expect(body.toolResults.map((r: { toolName: string }) => r.toolName)).toEqual(['spiritualDestinationsTool', 'weatherTool']);
    const [found] = body.toolResults[0].result.destinations;
    expect(found).toMatchObject({ id: 'meteora', latitude: METEORA.latitude, longitude: METEORA.longitude });
    // Only the forecast: the catalogue's coordinates replace a name lookup.
    expect(h.weather.requests.map((r) => r.path)).toEqual(['/v1/forecast']);
    expect(h.weather.requests[0].query).toMatchObject({ latitude: String(METEORA.latitude), longitude: String(METEORA.longitude) });
    expect(body.toolResults[1].result).toEqual(weatherToolResultAt('Meteora', METEORA.latitude, METEORA.longitude));
    expect(body.text).toBe('Meteora it is; pack a light jacket.');
  });

  it('tells the model when the place to search near is unknown, and still answers', async () => {
    h.model.script(
      { toolCalls: [{ name: 'spiritualDestinationsTool', args: { near: 'Xanadu Hollow' } }] },
      { text: 'I could not find Xanadu Hollow.' },
    );

    const response = await h.post(GENERATE, userSays('Temples near Xanadu Hollow?'));
    const body = await response.json();

    expect(response.status).toBe(200);
    expect(body.text).toBe('I could not find Xanadu Hollow.');
    expect(toolMessage(1).error).toContain('Place "Xanadu Hollow" was not found');
    expect(h.weather.requests.map((r) => r.query.name)).toEqual(['Xanadu Hollow']);
  });
});

describe('spiritual destinations through POST /stream', () => {
  it('streams the tool call and a result sorted by distance from the place', async () => {
    h.model.script(
      { toolCalls: [{ name: 'spiritualDestinationsTool', args: { query: 'Shinto shrines near Kyoto' } }] },
      { text: ['Fushimi Inari ', 'is closest.'] },
    );

    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Shinto shrines near Kyoto?'))));

    expect(events.map((e) => e.type)).toEqual(toolThenTextOrder(events, 2));
    const call = events.find((e) => e.type === 'tool-call');
    expect(call.payload).toMatchObject({ toolName: 'spiritualDestinationsTool', args: { query: 'Shinto shrines near Kyoto' } });
    const { result } = events.find((e) => e.type === 'tool-result').payload;
    expect(result.destinations.map((d: { id: string; distanceKm: number }) => [d.id, d.distanceKm])).toEqual([
      ['fushimi-inari-taisha', 6.2],
      ['kasuga-taisha', 38.8],
    ]);
    expect(result.understood.near).toMatchObject({ name: 'Kyoto', country: 'Japan', radiusKm: 100 });
    expect(h.weather.requests).toEqual([]);
  });

  it('streams the catalogue → weather flow with the catalogue coordinates', async () => {
    h.model.script(
      { toolCalls: [{ name: 'spiritualDestinationsTool', args: { query: 'Meteora', limit: 1 } }] },
      { toolCalls: [{ name: 'weatherTool', args: { location: 'Meteora', latitude: METEORA.latitude, longitude: METEORA.longitude } }] },
      { text: 'Clear enough for the climb.' },
    );

    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Weather at Meteora?'))));

    const results = events.filter((e) => e.type === 'tool-result').map((e) => e.payload);
    expect(results.map((r) => r.toolName)).toEqual(['spiritualDestinationsTool', 'weatherTool']);
    expect(results[0].result.destinations[0]).toMatchObject({ latitude: METEORA.latitude, longitude: METEORA.longitude });
    expect(results[1].result).toMatchObject({ location: 'Meteora', temperature: weatherAt(METEORA.latitude, METEORA.longitude).temperature_2m });
    expect(events.at(-1)).toMatchObject({ type: 'run-finish', payload: { finishReason: 'stop' } });
  });
});
