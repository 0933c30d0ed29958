// A real PostgreSQL cluster of a test's own (or a bench's): initdb into a temporary folder, started
// with pg_ctl on a free port of 127.0.0.1 with its unix socket inside the folder, a database and a
// URL with a password (so that tests can check it never shows), restartable and stoppable, removed
// at the end (and stopped when the process exits without removing it).
//
// The binaries are Debian's (/usr/lib/postgresql/<version>/bin; scripts/install-test-tools.sh
// installs the package), or the folder PG_BIN names. PostgreSQL refuses to run as root: as root,
// every command runs as the `postgres` user (runuser), who owns the folder.
//
// Other packages import it as `@enrich/bulk/test-postgres`.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresCluster {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<database>` of the database made at start. */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** Makes another database of the cluster and gives its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: sessions are cut) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Stops the server; `start` brings it back. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server at once and removes the folder. */
  remove(): Promise<void>;
}

const USER = 'postgres';

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): run scripts/install-test-tools.sh, or set PG_BIN',
    );
  }
  return join(root, versions[0], 'bin');
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the postgres user when we are root; throws with its output. */
function run(bin: string, args: readonly string[]): void {
  const [command, all] = asRoot ? ['runuser', ['-u', USER, '--', bin, ...args]] : [bin, [...args]];
  const result = spawnSync(command, all, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`${bin} ${args[0] ?? ''} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port found');
  return address.port;
}

export async function startPostgresCluster(options: { database?: string } = {}): Promise<PostgresCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'enrich-pg-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  const log = join(dir, 'server.log');
  const password = randomBytes(12).toString('hex');
  mkdirSync(socket);
  writeFileSync(join(dir, 'password'), password);
  if (asRoot) execFileSync('chown', ['-R', `${USER}:`, dir]);
  chmodSync(dir, 0o700);
  run(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    USER,
    '--pwfile',
    join(dir, 'password'),
    '--auth-host=scram-sha-256',
    '--auth-local=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  rmSync(join(dir, 'password'));
  const port = await freePort();
  // fsync off: a test cluster lives for one run; crash safety of the disk is not what is tested.
  const serverOptions = `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const ctl = (...args: string[]) => run(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const start = () => ctl('-o', serverOptions, '-l', log, '-w', '-t', '60', 'start');
  let running = false;
  const stopNow = () => {
    if (!running) return;
    running = false;
    try {
      ctl('-m', 'immediate', '-w', 'stop');
    } catch {
      // Already stopped.
    }
  };
  process.once('exit', stopNow);
  start();
  running = true;
  const urlOf = (database: string) => `postgres://${USER}:${password}@127.0.0.1:${port}/${database}`;
  const createDatabase = async (name: string) => {
    const client = new pg.Client({ connectionString: urlOf('postgres') });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    } finally {
      await client.end();
    }
    return urlOf(name);
  };
  const url = await createDatabase(options.database ?? 'enrich_test');
  return {
    url,
    port,
    password,
    createDatabase,
    async restart() {
      ctl('-m', 'fast', '-w', 'stop');
      start();
    },
    async stop() {
      ctl('-m', 'fast', '-w', 'stop');
      running = false;
    },
    async start() {
      start();
      running = true;
    },
    async remove() {
      stopNow();
      process.removeListener('exit', stopNow);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on a connection of its own (tests of packages without the driver use it). */
export async function queryAt<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
