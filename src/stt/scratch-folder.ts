/**
 * @module The service's scratch folder, where `/stt` keeps uploads and their decoded audio while it transcribes them
 * and the local engine its companion model: one per running service, `<parent>/companion-agent.<pid>.<random>`,
 * removed when the service stops. A crash (kill -9, out of memory) removes nothing, so each start removes the
 * folders a service that is gone left behind: its process no longer runs, or it had this process's pid and the folder
 * is older than this process (a container restarted keeps its files, and its service gets the same pid).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'companion-agent.';
const FOLDER_NAME = /^companion-agent\.(\d+)\./;

export interface ScratchFolder {
  path: string;
  remove(): void;
}

export function openScratchFolder(parent: string, isRunning: (pid: number) => boolean = processIsRunning): ScratchFolder {
  const startedAt = Date.now() - process.uptime() * 1000;
  for (const name of readdirSync(parent)) {
    const pid = Number(FOLDER_NAME.exec(name)?.[1]);
    if (!pid) continue;
    const folder = join(parent, name);
    const leftBehind = pid === process.pid ? modifiedBefore(folder, startedAt) : !isRunning(pid);
    if (leftBehind) rmSync(folder, { recursive: true, force: true });
  }
  const path = mkdtempSync(join(parent, `${PREFIX}${process.pid}.`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

function modifiedBefore(folder: string, time: number) {
  try {
    return statSync(folder).mtimeMs < time;
  } catch {
    return false; // removed meanwhile
  }
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
