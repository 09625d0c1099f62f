/**
 * @module A server that cannot listen (its port taken, a HOST that is not this machine's or that no name server
 * knows) is the operator's to fix, like a bad configuration: one line naming PORT/HOST, exit code 1, no stack
 * trace. Mastra's server listens without an error handler, so the failure surfaces as an uncaught exception; it
 * is watched for with a monitor, which leaves every other uncaught exception to Node's default handling.
 */

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use',
  EACCES: 'needs privileges this process does not have (a port below 1024)',
  EADDRNOTAVAIL: 'is not an address of this machine',
  ENOTFOUND: 'names a host that cannot be found',
  EAI_AGAIN: 'names a host the name service could not look up now',
};

export function exitOnListenFailure({ host, port }: { host: string; port: number }) {
  process.on('uncaughtExceptionMonitor', (error) => {
    const { syscall, code, hostname } = error as NodeJS.ErrnoException & { hostname?: string };
    // Listening on a HOST given as a name looks it up first: that failure is the same mistake, one step earlier.
    const failedToListen = syscall === 'listen' || (syscall === 'getaddrinfo' && hostname === host);
    if (!failedToListen || !code) return;
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    console.error(`PORT/HOST: ${address} ${REASONS[code] ?? `cannot be listened on (${code})`}`);
    process.exit(1);
  });
}
