/**
 * @module A minimal SSE client on node:http that timestamps each `data:` event as it arrives:
 * the time to the first reply-text event, and the time from the last text event to the end of
 * the response (what a server still does after the reply is complete). The same client runs the
 * many-concurrent-streams phase and checks each stream's full text.
 */
import { Agent, request } from 'node:http';
import { readStreamEvent, sampleRss, type ServerUnderTest, type ThreadIds } from './servers.ts';

export interface StreamOutcome {
  status: number;
  /** request written → first text event, ms */
  firstTextMs: number;
  /** last text event → response end, ms */
  lastTextToEndMs: number;
  text: string;
  /** error events in the stream, or a socket error */
  failed: boolean;
}

/** Streams one turn and times it; never rejects (a socket error is a failed outcome). */
function timeStream(server: ServerUnderTest, ids: ThreadIds, agent: Agent): Promise<StreamOutcome> {
  const url = new URL(server.url + server.path.stream);
  const body = JSON.stringify(server.body('Tell me something kind.', ids));
  return new Promise((resolve) => {
    const startedAt = performance.now();
    let firstText = NaN;
    let lastText = NaN;
    let text = '';
    let failed = false;
    let buffer = '';
    const onEvent = (data: string) => {
      const event = readStreamEvent(server, data);
      if (event?.delta !== undefined) {
        lastText = performance.now();
        if (Number.isNaN(firstText)) firstText = lastText;
        text += event.delta;
      } else if (event?.failed) failed = true;
    };
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (frame.startsWith('data: ')) onEvent(frame.slice('data: '.length));
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            firstTextMs: firstText - startedAt,
            lastTextToEndMs: performance.now() - lastText,
            text,
            failed: failed || res.statusCode !== 200,
          }),
        );
        res.on('error', () => resolve({ status: res.statusCode ?? 0, firstTextMs: NaN, lastTextToEndMs: NaN, text, failed: true }));
      },
    );
    req.on('error', () => resolve({ status: 0, firstTextMs: NaN, lastTextToEndMs: NaN, text, failed: true }));
    req.end(body);
  });
}

/** `samples` timed streams per server at one connection each, servers taking turns sample by sample. */
export async function sampleStreamTimings(servers: ServerUnderTest[], samples: number, ids: (server: ServerUnderTest) => ThreadIds) {
  const outcomes = new Map(servers.map((server) => [server.name, [] as StreamOutcome[]]));
  const agents = new Map(servers.map((server) => [server.name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const threads = new Map(servers.map((server) => [server.name, ids(server)]));
  for (let sample = 0; sample < samples; sample++) {
    for (const server of servers) {
      outcomes.get(server.name)!.push(await timeStream(server, threads.get(server.name)!, agents.get(server.name)!));
    }
  }
  for (const agent of agents.values()) agent.destroy();
  return outcomes;
}

export interface ManyStreamsResult {
  streams: number;
  /** streams that failed, errored, or did not carry the whole reply */
  errors: number;
  /** RSS when the streams were opened, and its peak while they ran, MB */
  startRssMb: number;
  peakRssMb: number;
  seconds: number;
}

/** `count` streams opened at once, each on a connection and thread of its own. */
export async function manyStreams(server: ServerUnderTest, count: number, expectedText: string, ids: (index: number) => ThreadIds): Promise<ManyStreamsResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const startRssMb = server.rssMb();
  const rss = sampleRss(server);
  const startedAt = performance.now();
  const outcomes = await Promise.all(Array.from({ length: count }, (_, index) => timeStream(server, ids(index), agent)));
  const seconds = (performance.now() - startedAt) / 1000;
  agent.destroy();
  return {
    streams: count,
    errors: outcomes.filter((outcome) => outcome.failed || outcome.text !== expectedText).length,
    startRssMb,
    peakRssMb: rss.stop(),
    seconds,
  };
}
