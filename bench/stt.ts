/**
 * The local speech engine's speed and memory: real-time factor and peak resident memory for 5 s, 60 s
 * and 10 min of speech (flite sentences with pauses, WAV), with one decoder worker (one core), and the
 * word error rate over the synthetic phrase set and the place-name set, with and without the companion
 * vocabulary. Prints markdown tables.
 *
 *   npm run bench:stt
 *
 * RTF (wall) is elapsed time / audio duration; RTF (CPU) counts only the CPU time the engine's
 * processes used, so it holds on a busy machine too. Peak RSS is sampled every 50 ms over the
 * engine's child processes (decoder worker + ffmpeg) and, separately, this process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createLocalEngine } from '../src/stt/local-engine.ts';
import { companionVocabulary } from '../src/stt/companion-vocabulary.ts';
import type { SttEngine } from '../src/stt/engine.ts';
import { PLACE_PHRASES, recording, requireSpeechTools, speech, SPEECH_PHRASES, upload, VOICE, type Recording } from '../tests/fixtures/speech.ts';
import { corpusWordErrorRate, wordErrorRate } from '../tests/fixtures/wer.ts';

const TICKS_PER_SECOND = 100;

interface ProcessSample {
  pid: number;
  parent: number;
  cpuTicks: number;
  rssBytes: number;
}

function processes(): ProcessSample[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // After the command: [1] parent pid, [11] utime, [12] stime, [21] rss in pages.
        return [{ pid: Number(pid), parent: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]), rssBytes: Number(fields[21]) * 4096 }];
      } catch {
        return [];
      }
    });
}

/** CPU ticks used so far by this process's children: those alive, plus those already reaped. */
function childCpuTicks(): number {
  const self = readFileSync('/proc/self/stat', 'utf8');
  const fields = self.slice(self.lastIndexOf(')') + 2).split(' ');
  const reaped = Number(fields[13]) + Number(fields[14]); // cutime + cstime
  return reaped + processes().filter((p) => p.parent === process.pid).reduce((sum, p) => sum + p.cpuTicks, 0);
}

function memorySampler() {
  let children = 0;
  let self = 0;
  const timer = setInterval(() => {
    const all = processes();
    children = Math.max(children, all.filter((p) => p.parent === process.pid).reduce((sum, p) => sum + p.rssBytes, 0));
    self = Math.max(self, all.find((p) => p.pid === process.pid)?.rssBytes ?? 0);
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return { children, self };
    },
  };
}

const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

await requireSpeechTools();

async function corpusWer(engine: SttEngine, phrases: readonly string[]) {
  const pairs = [];
  for (const phrase of phrases) {
    const { transcript } = await engine.transcribe(upload({ path: await speech(phrase), format: 'wav' }), {});
    pairs.push({ reference: phrase, hypothesis: transcript });
  }
  return { ...corpusWordErrorRate(pairs), misheard: pairs.filter(({ reference, hypothesis }) => reference !== hypothesis) };
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;
const SETS = { 'everyday phrases': SPEECH_PHRASES, 'place-name phrases': PLACE_PHRASES };
const werRows = [];
const misheard = [];
for (const [label, vocabulary] of [['general model only', undefined], ['with the companion vocabulary', companionVocabulary()]] as const) {
  const engine = createLocalEngine({ workers: 1, vocabulary });
  try {
    const rates = [];
    for (const phrases of Object.values(SETS)) {
      const wer = await corpusWer(engine, phrases);
      rates.push(`${percent(wer.rate)} (${wer.errors}/${wer.words})`);
      misheard.push(...wer.misheard.map(({ reference, hypothesis }) => `  ${label}, said: ${reference}\n    heard: ${hypothesis}`));
    }
    werRows.push(`| ${label} | ${rates.join(' | ')} |`);
  } finally {
    await engine.close();
  }
}

const engine = createLocalEngine({ workers: 1, vocabulary: companionVocabulary() });
try {
  // Model loading happens once per worker; measure it apart from the steady state.
  const warmUpStart = performance.now();
  await engine.transcribe(upload({ path: await speech(SPEECH_PHRASES[0]), format: 'wav' }), {});
  const warmUpSeconds = (performance.now() - warmUpStart) / 1000;

  const inputs: [string, Recording][] = [
    ['5 s', await recording({ phrases: SPEECH_PHRASES.slice(0, 2) })],
    ['60 s', await recording({ minSeconds: 60 })],
    ['10 min', await recording({ minSeconds: 600 })],
  ];
  const rows = [];
  for (const [label, file] of inputs) {
    const memory = memorySampler();
    const cpuBefore = childCpuTicks();
    const started = performance.now();
    const { transcript } = await engine.transcribe(upload(file), {});
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = (childCpuTicks() - cpuBefore) / TICKS_PER_SECOND;
    const peak = memory.stop();
    rows.push(
      `| ${label} | ${file.durationSeconds.toFixed(1)} s | ${seconds.toFixed(1)} s | ${(seconds / file.durationSeconds).toFixed(3)} | ` +
        `${(cpuSeconds / file.durationSeconds).toFixed(3)} | ${mb(peak.children)} | ${mb(peak.self)} | ` +
        `${percent(wordErrorRate(file.text, transcript).rate)} |`,
    );
  }

  console.log(`Local engine (PocketSphinx 5prealpha, companion vocabulary, 1 worker), first request with model load: ${warmUpSeconds.toFixed(2)} s\n`);
  console.log('| audio | duration | elapsed | RTF (wall) | RTF (CPU) | peak RSS worker + ffmpeg | peak RSS this process | WER of this audio |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await engine.close();
}

console.log(`\nWord error rate, flite voice ${VOICE}:\n`);
console.log(`| decoder | ${Object.entries(SETS).map(([set, phrases]) => `${set} (${phrases.length})`).join(' | ')} |`);
console.log('|---|---|---|');
for (const row of werRows) console.log(row);
console.log(`\n${misheard.join('\n')}`);
