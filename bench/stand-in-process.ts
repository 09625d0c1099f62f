/**
 * @module The model and weather stand-ins in a process of their own, so the model's pacing and
 * its CPU never share an event loop with the load generator or a server under test. Speaks to
 * bench/stand-in.ts over IPC: sends its URLs once listening, takes `pace` messages.
 */
import { startOpenAIStandIn, type BenchTurn } from '../tests/fixtures/openai-stand-in.ts';
import { startOpenMeteoStandIn } from '../tests/fixtures/open-meteo-stand-in.ts';

const [model, weather] = await Promise.all([startOpenAIStandIn(), startOpenMeteoStandIn()]);

process.on('message', (message: { type: 'pace'; bench: BenchTurn }) => {
  model.bench = message.bench;
  process.send!({ type: 'paced' });
});
process.on('disconnect', () => process.exit(0));

process.send!({ type: 'ready', baseURL: model.baseURL, geocodingUrl: weather.geocodingUrl, forecastUrl: weather.forecastUrl });
