/**
 * Which account a request is about. A server on one DuckDB file shows the accounts in its
 * `accounts` table (usually one); a lake server (`serve --lake`) the accounts in the lake. An
 * /api request picks one with `?account=NAME` (default: the configured account when present,
 * else the first); GET /api/accounts lists them for the dashboard's selector.
 */
import { Router, type Response } from 'express';
import type { Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import type { Database } from '../store/db.ts';
import type { AccountsAnswer } from './api-types.ts';
import { fileStamp } from './report-cache.ts';
import type { SyncGate } from './sync-gate.ts';

/** How long the list of accounts is reused (an account added meanwhile is found when asked for). */
const ACCOUNTS_KEPT_MS = 10_000;

async function fileAccounts(db: Database): Promise<string[]> {
  const con = await db.connect();
  try {
    const rows = (await con.runAndReadAll('SELECT account FROM accounts ORDER BY account')).getRowObjectsJS();
    return rows.map((r) => String(r.account));
  } finally {
    con.closeSync();
  }
}

export function accountRoutes(
  db: Database,
  config: Readonly<Config>,
  list: (() => string[] | Promise<string[]>) | undefined,
  gate: SyncGate | null = null,
): Router {
  const r = Router();
  // Every /api call needs the list: it is kept rather than asked of the database (a connection
  // and a statement) on each call, which queued light calls behind a sync's and the downloads'
  // work. Accounts are added by syncs, which run through the gate: the list is asked again when a
  // run starts or ends, when an account asked for is not in it, and at the latest after a while.
  // A file's list is also kept while the database's files are unchanged (fileStamp): the first
  // visit after a quiet night asked it again (a connection and a statement, 0.2–0.5 s at load 10).
  let kept: { list: string[]; atMs: number; runs: string; stamp: string | null } | null = null;
  const runsSeen = () => `${gate?.running ?? false}\u0000${gate?.last?.run_id ?? ''}`;
  const stampOf = list ? () => null : fileStamp(db.path);
  const accounts = async (fresh = false) => {
    // the files are looked at only once the time bound has passed (a stat of two files a request)
    if (
      !fresh &&
      kept &&
      kept.runs === runsSeen() &&
      (performance.now() - kept.atMs < ACCOUNTS_KEPT_MS || (kept.stamp !== null && kept.stamp === stampOf()))
    )
      return kept.list;
    const stamp = stampOf();
    const runs = runsSeen();
    const found = await (list ? list() : fileAccounts(db));
    const all = found.length ? found : [config.account];
    kept = { list: all, atMs: performance.now(), runs, stamp };
    return all;
  };
  r.use(async (req, res, next) => {
    let all = await accounts();
    const asked = (req.query as Record<string, unknown>).account;
    if (asked === undefined || asked === '') {
      res.locals.account = all.includes(config.account) ? config.account : all[0];
      return next();
    }
    if (typeof asked === 'string' && !all.includes(asked)) all = await accounts(true);
    if (typeof asked !== 'string' || !all.includes(asked))
      throw new FleetsyncError(
        'E_BAD_REQUEST',
        `account: unknown account ${JSON.stringify(asked)}; accounts here: ${all.join(', ')}`,
      );
    res.locals.account = asked;
    next();
  });
  r.get('/accounts', async (_req, res) => {
    res
      .set('Cache-Control', 'no-store')
      .json({ accounts: await accounts(), current: accountOf(res, config) } satisfies AccountsAnswer);
  });
  return r;
}

/** The account the request is about (set by accountRoutes). */
export const accountOf = (res: Response, config: Readonly<Config>): string =>
  typeof res.locals.account === 'string' ? res.locals.account : config.account;

/** A request's query without `account` (report parameters do not know it). */
export function withoutAccount(query: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) if (k !== 'account') rest[k] = v;
  return rest;
}
