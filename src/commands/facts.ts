/**
 * `fleetsync facts rebuild [--account NAME] [--json]`: computes an account's daily facts and day's
 * coverage again from its stored rows and ledger (src/store/facts.ts), in one transaction per
 * account, so the reports that read them never see half of it. The sync keeps them at every
 * commit and a re-zone rebuilds them; this is for anything else that changes what they are
 * computed from outside a sync (the working hours, a restored file).
 */
import { loadConfig } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { inTransaction, openDatabase } from '../store/db.ts';
import { accountZones, rebuildFacts } from '../store/facts.ts';
import type { Command } from './command.ts';

const USAGE = 'fleetsync facts rebuild [--account NAME] [--json]';

export const factsCommand: Command = {
  summary: "Computes the daily facts and the day's coverage again from the stored rows.",
  usage: USAGE,
  options: { account: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, ctx) {
    const [action, ...extra] = positionals;
    if (action !== 'rebuild' || extra.length)
      throw new FleetsyncError(
        'E_USAGE',
        `${action === undefined ? 'no action given' : `unknown action ${JSON.stringify(positionals.join(' '))}`}\nusage: ${USAGE}`,
      );
    const config = loadConfig(ctx.env);
    const db = await openDatabase(config.dbPath, { mustExist: true });
    const con = await db.connect();
    try {
      const all = await accountZones(con);
      const named = typeof values.account === 'string' ? values.account : undefined;
      const chosen = named === undefined ? all : all.filter((a) => a.account === named);
      if (named !== undefined && chosen.length === 0)
        throw new FleetsyncError(
          'E_USAGE',
          `this database holds no synced account ${JSON.stringify(named)}; it holds: ${all.map((a) => a.account).join(', ') || 'none'}`,
        );
      const out: { account: string; zone: string; fact_rows: number; ms: number }[] = [];
      for (const a of chosen) {
        const t0 = Date.now();
        const rows = await inTransaction(con, () => rebuildFacts(con, a.account, a.zone));
        out.push({ account: a.account, zone: a.zone, fact_rows: rows, ms: Date.now() - t0 });
      }
      if (values.json === true) ctx.stdout(JSON.stringify({ rebuilt: out }) + '\n');
      else if (out.length === 0) ctx.stdout('no synced account in this database: nothing to rebuild\n');
      else
        for (const r of out)
          ctx.stdout(
            `account ${r.account}: daily facts and coverage rebuilt in ${r.zone} (${r.fact_rows} fact rows, ${r.ms} ms)\n`,
          );
    } finally {
      con.closeSync();
      db.close();
    }
  },
};
