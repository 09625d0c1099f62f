/**
 * The house rules a newcomer cannot break by accident: SPEC's errors (status and code) are decided in
 * `src/contract/` only, which imports none of the service's other modules, and no module but the configuration's
 * loader reads the environment.
 */
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contract/errors.ts';

const ROOT = join(import.meta.dirname, '..');
/** Product modules: everything under src/ but tests, and the configuration. */
const PRODUCT = [...globSync('src/**/*.ts', { cwd: ROOT }).filter((path) => !path.endsWith('.test.ts')), 'mastra.config.ts'];
const source = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const outsideContract = PRODUCT.filter((path) => !path.startsWith('src/contract/'));

/** `file: line` for every line of the given files that matches. */
function offendingLines(paths: string[], pattern: RegExp): string[] {
  return paths.flatMap((path) =>
    source(path)
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [])),
  );
}

describe('SPEC errors are made in src/contract/ only', () => {
  it('finds the product modules it checks', () => {
    expect(outsideContract).toContain('src/stt/local-engine.ts');
    expect(outsideContract.length).toBeGreaterThan(50);
  });

  it('no module outside src/contract/ builds an ApiError itself', () => {
    expect(offendingLines(outsideContract, /new ApiError\(/)).toEqual([]);
  });

  it('no module outside src/contract/ names an error code', () => {
    // as a string literal (doc comments may name codes in backticks)
    const codes = new RegExp(`['"](${ERROR_CODES.join('|')})['"]`);
    expect(offendingLines(outsideContract, codes)).toEqual([]);
  });
});

it("src/contract/ depends on none of the service's other modules: it is what they agree on", () => {
  const contract = PRODUCT.filter((path) => path.startsWith('src/contract/'));
  expect(contract.length).toBeGreaterThan(10);
  expect(offendingLines(contract, /from '\.\.\//)).toEqual([]);
});

it('no module reads the environment but the configuration loader', () => {
  const readers = offendingLines(PRODUCT, /process\.env\b/);
  expect(readers.filter((line) => !line.startsWith('mastra.config.ts:'))).toEqual([]);
  // loadConfig reads it once; the pattern above is not vacuous
  expect(readers.length).toBeGreaterThan(0);
});
