import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, SUPPORTED_NODE } from './node-version.ts';

describe('the supported Node versions', () => {
  it("are package.json's engines", () => {
    const { engines } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    expect(SUPPORTED_NODE).toBe(engines.node);
  });

  // The check is written out by hand (the built output carries no semver): each case is also checked against the range.
  it.each(['22.22.0', '22.30.1', '24.11.0', '24.12.3', '25.0.0', '26.1.0'])('include %s', (version) => {
    expect(isSupportedNode(version)).toBe(true);
    expect(semver.satisfies(version, SUPPORTED_NODE)).toBe(true);
  });

  it.each(['20.20.2', '22.21.9', '23.11.0', '24.10.0', '18.19.0'])('exclude %s', (version) => {
    expect(isSupportedNode(version)).toBe(false);
    expect(semver.satisfies(version, SUPPORTED_NODE)).toBe(false);
  });
});
