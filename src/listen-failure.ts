/**
 * @module A server that cannot listen (its port taken, a HOST that is not this machine's) is the operator's to
 * fix, like a bad configuration: one line naming PORT/HOST, exit code 1, no stack trace. Mastra's server listens
 * without an error handler, so the failure surfaces as an uncaught exception; it is watched for with a monitor,
 * which leaves every other uncaught exception to Node's default handling.
 */

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use',
  EACCES: 'needs privileges this process does not have (a port below 1024)',
  EADDRNOTAVAIL: 'is not an address of this machine',
};

export function exitOnListenFailure({ host, port }: { host: string; port: number }) {
  process.on('uncaughtExceptionMonitor', (error) => {
    const { syscall, code } = error as NodeJS.ErrnoException;
    if (syscall !== 'listen' || !code) return;
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    console.error(`PORT/HOST: ${address} ${REASONS[code] ?? `cannot be listened on (${code})`}`);
    process.exit(1);
  });
}
