/**
 * @module A small pool of PocketSphinx worker processes shared by all transcriptions. Chunks queue in
 * arrival order and go to the first idle worker. Workers start on first use (~0.3 s to load the model)
 * and stop after a while without work, so an idle service does not hold about 180 MB per worker.
 * A cancelled chunk leaves the queue, or, if it is being decoded, its worker is killed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProjectRoot } from '../../mastra.config.ts';
import { transcriptionFailed } from '../contract/stt.ts';
import type { DecoderSettings } from '../mastra/public/stt/pocketsphinx.ts';
import type { WorkerReply, WorkerRequest } from '../mastra/public/stt/sphinx-worker.ts';
import { missingPackageError } from './system-packages.ts';

export interface SphinxPoolOptions {
  size: number;
  settings: DecoderSettings;
  /** A worker with nothing to do for this long exits. */
  idleTimeoutMs: number;
}

interface Job {
  id: number;
  pcm: Int16Array;
  signal?: AbortSignal;
  resolve(text: string): void;
  reject(error: unknown): void;
  onAbort(): void;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  job?: Job;
  idleTimer?: NodeJS.Timeout;
}

let workerPath: string | undefined;

/**
 * The worker's own file, which the service forks. It lives in src/mastra/public/stt/ because `mastra build`
 * copies that folder beside its bundle (where this module's code then is) and Node runs the file there as it is.
 * In the source tree it is found by its source path; under `mastra dev`, whose bundle sits in .mastra/output
 * without the public folder, in the project's source tree. Looked up when the first worker starts, not when
 * the service does (most services never fork one).
 */
function sphinxWorkerPath(): string {
  if (workerPath) return workerPath;
  const candidates = [
    fileURLToPath(new URL('../mastra/public/stt/sphinx-worker.ts', import.meta.url)),
    fileURLToPath(new URL('./stt/sphinx-worker.ts', import.meta.url)),
    join(findProjectRoot(import.meta.dirname), 'src/mastra/public/stt/sphinx-worker.ts'),
  ];
  return (workerPath = candidates.find((path) => existsSync(path)) ?? candidates[1]!);
}

const RECOGNISER_FAILED = () => transcriptionFailed('The speech recogniser failed on this audio; please try again.');

export class SphinxPool {
  readonly #options: SphinxPoolOptions;
  readonly #queue: Job[] = [];
  readonly #workers = new Set<Worker>();
  #nextId = 0;
  #closed = false;

  constructor(options: SphinxPoolOptions) {
    this.#options = options;
  }

  /** The words in one chunk of 16 kHz mono PCM. Rejects with `signal.reason` when aborted. */
  decode(pcm: Int16Array, signal?: AbortSignal): Promise<string> {
    if (this.#closed) return Promise.reject(new Error('the speech worker pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        pcm,
        signal,
        resolve: (text) => settle(() => resolve(text)),
        reject: (error) => settle(() => reject(error)),
        onAbort: () => this.#cancel(job),
      };
      const settle = (finish: () => void) => {
        signal?.removeEventListener('abort', job.onAbort);
        finish();
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('the speech worker pool is closed'));
    await Promise.all([...this.#workers].map((worker) => this.#stop(worker)));
  }

  #dispatch() {
    while (this.#queue.length > 0) {
      const idle = [...this.#workers].find((worker) => worker.ready && !worker.job);
      if (idle) this.#assign(idle, this.#queue.shift()!);
      else if (this.#workers.size < this.#options.size && !this.#starting()) this.#spawn();
      else return;
    }
  }

  /** One worker starts at a time, so a burst of chunks does not load the model into every process at once. */
  #starting(): boolean {
    return [...this.#workers].some((worker) => !worker.ready);
  }

  #assign(worker: Worker, job: Job) {
    clearTimeout(worker.idleTimer);
    worker.job = job;
    worker.child.send({ type: 'decode', id: job.id, pcm: job.pcm } satisfies WorkerRequest);
  }

  #spawn() {
    const child = fork(sphinxWorkerPath(), [JSON.stringify(this.#options.settings)], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      execArgv: [],
    });
    const worker: Worker = { child, ready: false };
    this.#workers.add(worker);
    child.on('message', (reply: WorkerReply) => this.#onReply(worker, reply));
    child.on('exit', () => this.#onExit(worker));
    child.on('error', () => child.kill('SIGKILL'));
  }

  #onReply(worker: Worker, reply: WorkerReply) {
    if (reply.type === 'ready') {
      worker.ready = true;
    } else if (reply.type === 'failed') {
      // The same settings fail in every worker: everything waiting fails the same way.
      const error = reply.missingPackage ? missingPackageError(reply.missingPackage) : RECOGNISER_FAILED();
      for (const job of this.#queue.splice(0)) job.reject(error);
      return;
    } else if (worker.job?.id === reply.id) {
      const job = worker.job;
      worker.job = undefined;
      if (reply.type === 'result') job.resolve(reply.text);
      else job.reject(RECOGNISER_FAILED());
    }
    this.#idleAfterWork(worker);
    this.#dispatch();
  }

  #idleAfterWork(worker: Worker) {
    clearTimeout(worker.idleTimer);
    worker.idleTimer = setTimeout(() => void this.#stop(worker), this.#options.idleTimeoutMs);
    worker.idleTimer.unref();
  }

  #onExit(worker: Worker) {
    clearTimeout(worker.idleTimer);
    this.#workers.delete(worker);
    if (worker.job) worker.job.reject(RECOGNISER_FAILED());
    else if (!worker.ready) for (const job of this.#queue.splice(0)) job.reject(RECOGNISER_FAILED());
    if (!this.#closed) this.#dispatch();
  }

  #cancel(job: Job) {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) this.#queue.splice(queued, 1);
    const worker = [...this.#workers].find((w) => w.job === job);
    if (worker) {
      // A decode cannot be interrupted inside the library: the worker goes, a fresh one takes its place.
      worker.job = undefined;
      worker.child.kill('SIGKILL');
    }
    job.reject(job.signal?.reason);
  }

  #stop(worker: Worker): Promise<void> {
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      worker.child.once('exit', () => resolve());
      worker.child.kill('SIGKILL');
    });
  }
}
