/**
 * @module `node --import ./bench/stock/loader.ts`: runs a process on stock Mastra. Every
 * import that resolves into a patched package under the repository's node_modules is
 * pointed at its unpatched copy (bench/stock/stock-copies.ts), whoever imports it.
 */
import { realpathSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureStockCopies, STOCK_ROOT } from './stock-copies.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const packages = ensureStockCopies(repoRoot);
const redirects = packages.map((name) => ({
  // Node resolves modules to their real paths: a node_modules that is a link (a CI cache, a shared install) must match too.
  from: pathToFileURL(realpathSync(join(repoRoot, 'node_modules', name))).href + '/',
  to: pathToFileURL(join(repoRoot, STOCK_ROOT, 'node_modules', name)).href + '/',
}));

register(new URL('./resolve-hook.ts', import.meta.url), { data: redirects });
