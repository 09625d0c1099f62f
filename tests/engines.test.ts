/**
 * `engines` in package.json tells the truth: every Node version it admits runs
 * `node src/server.ts` (TypeScript type stripping, on by default from 22.18) and
 * satisfies every production dependency, and the Node the project installs for
 * its own scripts (the `node` devDependency) is one of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
const engines: string = read('package.json').engines.node;

describe('engines.node', () => {
  it('admits only Node versions that run TypeScript directly', () => {
    expect(semver.subset(engines, '>=22.18.0')).toBe(true);
  });

  it('admits only Node versions every production dependency accepts', () => {
    const lock = read('package-lock.json');
    const refusing = Object.entries<{ dev?: boolean; engines?: { node?: string } }>(lock.packages)
      .filter(([path, entry]) => path && !entry.dev && entry.engines?.node)
      .filter(([, entry]) => !semver.subset(engines, entry.engines!.node!))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')} needs ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
  });

  it("admits the Node the project's scripts run on", () => {
    expect(semver.satisfies(read('node_modules/node/package.json').version, engines)).toBe(true);
  });
});
