/**
 * @module One PocketSphinx decoder in its own process (forked by SphinxPool). Decoding is CPU-bound
 * native code: here it cannot block the service's event loop, a crash in the library costs one
 * worker rather than the service, and stopping a cancelled decode is a kill.
 *
 * Protocol (IPC, advanced serialization): argv[2] is the JSON DecoderSettings; the worker answers
 * `{type: 'ready'}` or `{type: 'failed', missingPackage?}`, then for each `{type: 'decode', id, pcm}`
 * (pcm an Int16Array) `{type: 'result', id, text}` or `{type: 'error', id}`.
 */
import { MissingPackageError, openDecoder, type Decoder, type DecoderSettings } from './pocketsphinx.ts';

export type WorkerRequest = { type: 'decode'; id: number; pcm: Int16Array };
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'failed'; missingPackage?: MissingPackageError['packageName'] }
  | { type: 'result'; id: number; text: string }
  | { type: 'error'; id: number };

function send(reply: WorkerReply) {
  process.send!(reply);
}

async function start(settings: DecoderSettings) {
  let decoder: Decoder;
  try {
    decoder = await openDecoder(settings);
  } catch (error) {
    send({ type: 'failed', missingPackage: error instanceof MissingPackageError ? error.packageName : undefined });
    process.disconnect();
    return;
  }
  process.on('message', (request: WorkerRequest) => {
    try {
      send({ type: 'result', id: request.id, text: decoder.decode(request.pcm) });
    } catch {
      send({ type: 'error', id: request.id });
    }
  });
  send({ type: 'ready' });
}

// The service went away (or closed the pool): nothing is left to decode for.
process.on('disconnect', () => process.exit(0));
await start(JSON.parse(process.argv[2]) as DecoderSettings);
