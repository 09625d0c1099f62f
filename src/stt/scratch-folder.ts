/**
 * @module The service's scratch folder, where `/stt` keeps uploads and their decoded audio while it transcribes them
 * and the local engine its companion model: one per running service, `<parent>/companion-agent.<host>.<pid>.<random>`,
 * removed when the service stops. A crash (kill -9, out of memory) removes nothing, so each start removes the
 * folders a service of this host that is gone left behind: its process no longer runs, or it had this process's pid
 * and the folder is older than this process (a container restarted keeps its files, and its service gets the same
 * pid). Another host's folders (containers sharing a temporary folder, each with its own pids) are left alone.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { access, constants, lstat, mkdir, mkdtemp } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'companion-agent.';
const FOLDER_NAME = /^companion-agent\.(.+)\.(\d+)\.[^.]+$/;

export interface ScratchFolder {
  path: string;
  remove(): void;
}

export interface ScratchHost {
  name: string;
  isRunning(pid: number): boolean;
}

const THIS_HOST: ScratchHost = { name: hostname(), isRunning: processIsRunning };

/** Sweeps what crashed services of this host left in `parent`, then makes this service's folder there. */
export function openScratchFolder(parent: string, host: ScratchHost = THIS_HOST): ScratchFolder {
  const startedAt = Date.now() - process.uptime() * 1000;
  for (const name of readdirSync(parent)) {
    const [, folderHost, folderPid] = FOLDER_NAME.exec(name) ?? [];
    if (folderHost !== host.name) continue;
    const pid = Number(folderPid);
    const folder = join(parent, name);
    const leftBehind = pid === process.pid ? modifiedBefore(folder, startedAt) : !host.isRunning(pid);
    if (leftBehind) removeIfAllowed(folder);
  }
  return folderAt(mkdtempSync(join(parent, ownName(host))));
}

function folderAt(path: string): ScratchFolder {
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A folder's name was taken by another user, or is no folder of this service's any more. */
class NotOwnFolder extends Error {
  readonly code = 'NOT_OWN_FOLDER';
}

/**
 * A folder of the service's, made again if something removed it (a temporary-folder cleaner takes what went
 * untouched for days: systemd-tmpfiles, 10; `/stt` had failed until a restart), and used only while it is still the
 * service's own: in a shared temporary folder another user could have made one of that name meanwhile, and swapped
 * what the service writes in it.
 */
export async function ownFolder(path: string): Promise<void> {
  const folder = await lstat(path).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    // Not its parents: a folder made in a parent someone else made could be swapped by them.
    await mkdir(path, { mode: 0o700 }).catch((failure: NodeJS.ErrnoException) => {
      if (failure.code !== 'EEXIST') throw failure;
    });
    return lstat(path);
  });
  const othersMayWrite = (folder.mode & 0o022) !== 0;
  if (!folder.isDirectory() || folder.uid !== process.getuid?.() || othersMayWrite) throw new NotOwnFolder(`${path} is not this service's own folder`);
}

/** A fresh folder inside the scratch folder (see ownFolder). */
export async function freshFolderIn(scratch: string, prefix: string): Promise<string> {
  await ownFolder(scratch);
  return mkdtemp(join(scratch, prefix));
}

/**
 * The scratch folder of a service whose temporary folder could not be written as it started: named, not made; the
 * first upload (or readiness check) once the temporary folder can be written makes it (see ownFolder).
 */
export function scratchFolderLater(parent: string, host: ScratchHost = THIS_HOST): ScratchFolder {
  return folderAt(join(parent, `${ownName(host)}later`));
}

/** Why uploads cannot be received in the scratch folder now, if they cannot (readiness: `/stt` would answer 500). */
export async function scratchProblem(scratch: string): Promise<string | undefined> {
  try {
    await ownFolder(scratch);
    await access(scratch, constants.W_OK);
    return undefined;
  } catch (error) {
    if (error instanceof NotOwnFolder) return `Uploads cannot be received: ${scratch} is not the service's own folder (another user's, writable by others, or a link).`;
    return `Uploads cannot be received: the temporary folder cannot be written (${(error as NodeJS.ErrnoException).code ?? 'unknown'}).`;
  }
}

/** This service's folder name up to its last part: `companion-agent.<host>.<pid>.` (FOLDER_NAME reads it back). */
function ownName(host: ScratchHost): string {
  return `${PREFIX}${host.name}.${process.pid}.`;
}

function modifiedBefore(folder: string, time: number) {
  try {
    return statSync(folder).mtimeMs < time;
  } catch {
    return false; // removed meanwhile
  }
}

/** A folder this service may not remove (another user's) stays: sweeping is a courtesy, not the service's job. */
function removeIfAllowed(folder: string) {
  try {
    rmSync(folder, { recursive: true, force: true });
  } catch {
    // left for its owner
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
