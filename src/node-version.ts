/**
 * @module The Node versions the service runs on: package.json's `engines`, which npm scripts respect (they run the
 * project's own Node) but a bare `node .mastra/output/index.mjs` does not. An older Node (Debian's, or a host's
 * Node 20) started the built output without a word, and `/stt`'s local engine, whose worker is TypeScript that Node
 * runs by stripping its types, then failed every upload while `/ready` said ok.
 */
export const SUPPORTED_NODE = '^22.22.0 || >=24.11.0';

/** Whether `version` (`process.versions.node`) is in SUPPORTED_NODE. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 22) || (major === 24 && minor >= 11) || major > 24;
}

/** Ends the process with one line (exit code 1) on a Node outside SUPPORTED_NODE, as a bad setting does. */
export function requireSupportedNode(version = process.versions.node): void {
  if (isSupportedNode(version)) return;
  console.error(`Node ${version} is not supported: run the service with Node ${SUPPORTED_NODE} (package.json engines).`);
  process.exit(1);
}
