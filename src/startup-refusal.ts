/**
 * @module A setting the service cannot work with, found only as it starts (a database folder it cannot write): the
 * operator's to fix, like a bad configuration, so it is told the same way: one line naming the setting, exit code 1,
 * no stack trace (a container restarting on a stack trace hides the line that matters).
 */
export class StartupRefusal extends Error {
  override readonly name = 'StartupRefusal';
}

/** What `starting` gives; a refusal ends the process with its one line. */
export async function refuseToStartOn<T>(starting: Promise<T>): Promise<T> {
  try {
    return await starting;
  } catch (error) {
    if (!(error instanceof StartupRefusal)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
