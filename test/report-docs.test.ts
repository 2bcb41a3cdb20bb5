/**
 * docs/reports.md's catalogue is generated from the report registry and the column descriptions
 * (scripts/gen-report-docs.ts): a report or column added without `npm run docs:reports` fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPORTS, type ReportDef } from '../src/reports/registry.ts';
import { END } from '../scripts/doc-blocks.ts';
import { BEGIN, REPORT_DOC, renderBlock, renderReport, replaceBlock } from '../scripts/gen-report-docs.ts';

describe('docs/reports.md', () => {
  it('holds exactly what npm run docs:reports writes (run it after changing the registry or columns.ts)', () => {
    const doc = readFileSync(REPORT_DOC, 'utf8');
    expect(replaceBlock(doc, renderBlock())).toBe(doc);
  });

  it('lists every report of the registry with every one of its columns', () => {
    const doc = readFileSync(REPORT_DOC, 'utf8');
    const catalogue = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END, doc.indexOf(BEGIN)));
    for (const def of REPORTS.values()) {
      const section = catalogue.split(`### \`${def.name}\` — `)[1]?.split('\n### ')[0] ?? '';
      const columns = [...section.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]);
      expect(columns, def.name).toEqual(def.columns.map((c) => c.name));
    }
  });
});

describe('a report as the generator writes it', () => {
  it('gives grain, query, parameters and per column its label, unit, cell and total', () => {
    const def: ReportDef = {
      name: 'mileage',
      title: 'Mileage per vehicle and month',
      grain: 'vehicle × local month',
      columns: [
        { name: 'distance_km', kind: 'number', total: true },
        { name: 'covered_share', kind: 'number' },
      ],
      extra: ['grain'],
    };
    expect(renderReport(def).split('\n')).toEqual([
      '### `mileage` — Mileage per vehicle and month',
      '',
      'Grain: vehicle × local month. Query: `queries/reports/mileage.sql`. Parameters: `from`, `to`, `month`, `vehicle`, `department`, `grain`.',
      '',
      '| Column | Label | Unit | Cell | Notes |',
      '|---|---|---|---|---|',
      '| `distance_km` | Distance | km | decimal, 1 place | summed in the totals row |',
      '| `covered_share` | Covered | % | share 0–1 (shown as %) |  |',
    ]);
  });
});

describe('the column glossary of docs/reports.md', () => {
  it('says what every column of every report means', () => {
    const doc = readFileSync(REPORT_DOC, 'utf8');
    const glossary = doc.slice(
      doc.indexOf('## Column glossary'),
      doc.indexOf('\n## ', doc.indexOf('## Column glossary') + 1),
    );
    const explained = new Set(
      [...glossary.matchAll(/^\| (`[a-z0-9_]+`(?:, `[a-z0-9_]+`)*) \|/gm)].flatMap((m) =>
        [...m[1]!.matchAll(/`([a-z0-9_]+)`/g)].map((n) => n[1]),
      ),
    );
    const columns = new Set([...REPORTS.values()].flatMap((d) => d.columns.map((c) => c.name)));
    expect([...columns].filter((c) => !explained.has(c))).toEqual([]);
  });
});
