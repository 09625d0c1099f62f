import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freshFolderIn, openScratchFolder, scratchFolderLater, scratchProblem } from './scratch-folder.ts';

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'scratch-parent-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

const HOST = 'host-a.example';

/** A folder as a service with `pid` (on `host`) left it, with an upload in it, last changed `ageMs` ago. */
function leftBy(pid: number, ageMs = 0, host = HOST) {
  const folder = join(parent, `companion-agent.${host}.${pid}.abc123`);
  mkdirSync(join(folder, 'stt-x'), { recursive: true });
  writeFileSync(join(folder, 'stt-x', 'upload'), 'audio');
  const at = new Date(Date.now() - ageMs);
  utimesSync(folder, at, at);
  return folder;
}

const GONE = 999_999;
const RUNNING = 424_242;
const thisHost = { name: HOST, isRunning: (pid: number) => pid !== GONE };

it('removes what a crashed service left behind, and keeps what running services, other hosts and others use', () => {
  leftBy(GONE);
  leftBy(RUNNING, 3_600_000);
  // Another container on a shared temporary folder: its pids are not this host's.
  leftBy(GONE, 0, 'host-b');
  mkdirSync(join(parent, 'someone-else'));

  const scratch = openScratchFolder(parent, thisHost);

  const kept = [`companion-agent.${HOST}.${RUNNING}.abc123`, `companion-agent.host-b.${GONE}.abc123`, 'someone-else'];
  expect(readdirSync(parent).sort()).toEqual([...kept, scratch.path.slice(parent.length + 1)].sort());
  expect(scratch.path).toMatch(new RegExp(`/companion-agent\\.host-a\\.example\\.${process.pid}\\.\\w+$`));
});

// A restarted container keeps its files and gives its service the same pid.
it('removes a folder with its own pid from before it started, and keeps one made since (another app in the process)', () => {
  const before = leftBy(process.pid, (process.uptime() + 60) * 1000);
  const sibling = openScratchFolder(parent, thisHost);

  const scratch = openScratchFolder(parent, thisHost);

  expect(readdirSync(parent).map((name) => join(parent, name)).sort()).toEqual([sibling.path, scratch.path].sort());
  expect(readdirSync(parent)).not.toContain(before.slice(parent.length + 1));
});

it('removes its own folder, with what is in it', () => {
  const scratch = openScratchFolder(parent, thisHost);
  writeFileSync(join(scratch.path, 'upload'), 'audio');
  scratch.remove();
  expect(readdirSync(parent)).toEqual([]);
});

it('makes its folder again when something removed it, and takes it only while it is its own', async () => {
  const { path } = openScratchFolder(parent, thisHost);
  rmSync(path, { recursive: true });
  const upload = await freshFolderIn(path, 'stt-');
  expect(upload.startsWith(`${path}/stt-`)).toBe(true);
  expect(await scratchProblem(path)).toBeUndefined();

  // Made meanwhile by someone else, in a shared temporary folder: writable by others, or a link to elsewhere.
  rmSync(path, { recursive: true });
  mkdirSync(path, { mode: 0o777 });
  chmodSync(path, 0o777);
  await expect(freshFolderIn(path, 'stt-')).rejects.toMatchObject({ code: 'NOT_OWN_FOLDER' });
  expect(await scratchProblem(path)).toBe(`Uploads cannot be received: ${path} is not the service's own folder (another user's, writable by others, or a link).`);
  rmSync(path, { recursive: true });
  symlinkSync(mkdtempSync(join(parent, 'elsewhere-')), path);
  await expect(freshFolderIn(path, 'stt-')).rejects.toMatchObject({ code: 'NOT_OWN_FOLDER' });
  expect(readdirSync(parent).filter((name) => name.startsWith('elsewhere-')).flatMap((name) => readdirSync(join(parent, name)))).toEqual([]);
});

it("is made by the first upload once the temporary folder can be written, when it could not be as the service started, in the folder's own name", async () => {
  const unwritable = join(parent, 'tmp');
  writeFileSync(unwritable, 'not a folder yet');
  expect(() => openScratchFolder(unwritable, thisHost)).toThrow();
  const { path } = scratchFolderLater(unwritable, thisHost);
  expect(await scratchProblem(path)).toBe('Uploads cannot be received: the temporary folder cannot be written (ENOTDIR).');

  rmSync(unwritable);
  mkdirSync(unwritable);
  chmodSync(unwritable, 0o1777);
  const upload = await freshFolderIn(path, 'stt-');
  expect(upload.startsWith(join(unwritable, `companion-agent.${HOST}.${process.pid}.later`, 'stt-'))).toBe(true);
  expect(await scratchProblem(path)).toBeUndefined();
});

it('makes no parent folder of its own: one made by someone else could be swapped', async () => {
  await expect(freshFolderIn(join(parent, 'missing', 'scratch'), 'stt-')).rejects.toMatchObject({ code: 'ENOENT' });
});
