/**
 * @module Stock Mastra for the peer. This project patches some Mastra packages at install
 * (patches/, applied by patch-package); the peer must run Mastra as its users get it, or every
 * patch would count for both sides. Each patched package is copied once into
 * node_modules/.cache/bench-stock with its patch reversed; bench/stock/loader.ts points the
 * peer's imports of those packages at the copies.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STOCK_ROOT = 'node_modules/.cache/bench-stock';

/** `@mastra+core+1.71.0.patch` → `@mastra/core` */
function packageOf(patchFile: string): string {
  const name = patchFile.replace(/\+[^+]+\.patch$/, '');
  return name.replaceAll('+', '/');
}

/** Makes the unpatched copies (again whenever a patch changes) and returns the packages they replace. */
export function ensureStockCopies(repoRoot: string): string[] {
  const patches = readdirSync(join(repoRoot, 'patches')).filter((file) => file.endsWith('.patch'));
  const root = join(repoRoot, STOCK_ROOT);
  const hash = createHash('sha256');
  for (const patchFile of patches) hash.update(patchFile).update(readFileSync(join(repoRoot, 'patches', patchFile)));
  const stamp = join(root, `ready-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(stamp)) {
    rmSync(root, { recursive: true, force: true });
    for (const patchFile of patches) {
      const name = packageOf(patchFile);
      const target = join(root, 'node_modules', name);
      mkdirSync(join(target, '..'), { recursive: true });
      cpSync(join(repoRoot, 'node_modules', name), target, { recursive: true });
      // the patch's paths are a/node_modules/<package>/…: reversed inside the copy's root
      execFileSync('patch', ['-R', '-p1', '--silent', '-d', root, '-i', join(repoRoot, 'patches', patchFile)]);
    }
    writeFileSync(stamp, '');
  }
  return patches.map(packageOf);
}
