import { startPostgres, type RunningPostgres } from './fixtures/postgres.ts';
import { describeMemorySuite } from './fixtures/memory-suite.ts';

// Its own file, so it runs alongside the LibSQL suite (tests/memory.test.ts).
let postgres: RunningPostgres | undefined;
describeMemorySuite({
  name: 'PostgreSQL',
  databaseUrl: async () => (postgres = await startPostgres()).url,
  cleanUp: async () => postgres?.stop(),
  secondInstance: 'a second replica',
});
