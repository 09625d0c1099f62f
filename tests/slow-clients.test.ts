import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GENERATE } from './fixtures/companion-harness.ts';
import { startService, type RunningService } from './fixtures/service.ts';

// Node's defaults give a client 300 s to send one request. Here: 1 s for the headers, 2 s for the whole request.
// Node checks these limits every 30 s, so a trickling client is cut between 2 and 32 s in: this test takes ~30 s.
let service: RunningService;
beforeAll(async () => {
  service = await startService({ DATABASE_URL: 'none', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
});
afterAll(() => service.stop());

/** Opens a connection, sends `head`, then one byte of `trickle` every 200 ms; resolves with what the server answered once it closes. */
function trickle(head: string, trickle: string) {
  const { port } = new URL(service.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(head);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]!);
  }, 200);
  return new Promise<{ answer: string; sent: number }>((resolve) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, sent });
    });
  });
}

it('cuts a client that trickles its body or its headers byte by byte, with 408', async () => {
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_000) }] });
  const [slowBody, slowHeaders] = await Promise.all([
    trickle(`POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body),
    trickle('', `POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nX-Padding: ${'x'.repeat(1_000)}\r\n\r\n`),
  ]);
  for (const { answer, sent } of [slowBody, slowHeaders]) {
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    // Cut long before the whole request was sent (over 1,000 bytes at 5 a second).
    expect(sent).toBeLessThan(200);
  }
}, 60_000);
