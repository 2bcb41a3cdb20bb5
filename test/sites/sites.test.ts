/** FLEETSYNC_SITES: which non-toll geofences' visits are synced, parsed once, refused with a clear message. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { parseSiteSelection, siteKept } from '../../src/sites.ts';

const kept = (spec: string, name: string | null) => {
  const r = parseSiteSelection(spec);
  if (!r.ok) throw new Error(r.error);
  return siteKept(r.value)(name);
};

describe('FLEETSYNC_SITES', () => {
  it('all (the default), none, or names with * for any text, matched whole and without case', () => {
    expect(loadConfig({}).sites).toEqual({ kind: 'all' });
    expect(kept('all', 'Depot Botany')).toBe(true);
    expect(kept(' NONE ', 'Depot Botany')).toBe(false);
    expect(kept('depot *', 'Depot Botany')).toBe(true);
    expect(kept('depot *', 'Old Depot Botany')).toBe(false);
    expect(kept('Depot *, Customer site Penrith Plaza', 'customer site penrith plaza')).toBe(true);
    expect(kept('Customer site Penrith Plaza', 'Customer site Penrith Plaza West')).toBe(false);
    // the name's other characters are literal
    expect(kept('Site (north).+', 'Site (north).+')).toBe(true);
    expect(kept('Site (north).+', 'Site (north)xx')).toBe(false);
    expect(kept('Depot *', null)).toBe(false);
  });

  it('an empty name is a configuration error naming the variable and what to write', () => {
    let problems: string[] = [];
    try {
      loadConfig({ FLEETSYNC_SITES: 'Depot *,,Yard' });
    } catch (e) {
      if (isFleetsyncError(e, 'E_CONFIG')) problems = (e.details?.problems as string[]) ?? [e.message];
    }
    expect(problems.join('\n')).toMatch(/FLEETSYNC_SITES.*Depot \*,,Yard.*"all", "none", or geofence names/);
  });
});
