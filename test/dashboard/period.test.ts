/**
 * The coverage words above the overview's tiles and on a tile (dashboard/js/period.js): the days
 * still open for late data are counted apart from the settled ones, so the sentence never says
 * "88 of 88 days synced" beside the word partial.
 */
import { beforeAll, describe, expect, it } from 'vitest';

type CoverageNote = (
  coverage: string | null,
  synced: number | null,
  open: number | null,
  days: number | null,
) => string;
let coverageNote: CoverageNote;

beforeAll(async () => {
  const period: string = '../../dashboard/js/period.js';
  ({ coverageNote } = (await import(period)) as { coverageNote: CoverageNote });
});

describe('coverageNote', () => {
  it('85 settled and 3 open of 88 ended days: settled of ended, the open ones apart', () => {
    expect(coverageNote('partial', 85, 3, 88)).toBe(
      'partial: 85 of 88 days synced, 3 more pulled but still open for late data',
    );
  });

  it('no day open: settled of ended; nothing pulled: not synced; complete: no note', () => {
    expect(coverageNote('partial', 30, 0, 90)).toBe('partial: 30 of 90 days synced');
    expect(coverageNote('not_synced', 0, 0, 30)).toBe('not synced: 0 of 30 days synced');
    expect(coverageNote('complete', 88, 0, 88)).toBe('');
  });
});
