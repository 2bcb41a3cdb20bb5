/**
 * Which non-toll geofences' visits a sync keeps (FLEETSYNC_SITES): `all` (the default), `none`
 * (toll visits only, one GET /geofences/visits?filter[is_toll]=true per window as before), or a
 * comma list of geofence names, each may hold `*` for any text (`Depot *` chooses a group of
 * geofences named alike; the API has no group field). Names match case-insensitively, on the
 * visit's geofence name. Toll visits are kept whatever the choice.
 */
export type SiteSelection = { kind: 'all' } | { kind: 'none' } | { kind: 'chosen'; names: string[] };

export const DEFAULT_SITES_SPEC = 'all';

/** Parses FLEETSYNC_SITES; the error says what is wrong and how it should look. */
export function parseSiteSelection(
  text: string,
): { ok: true; value: SiteSelection } | { ok: false; error: string } {
  const t = text.trim();
  if (t.toLowerCase() === 'all') return { ok: true, value: { kind: 'all' } };
  if (t.toLowerCase() === 'none') return { ok: true, value: { kind: 'none' } };
  const names = t.split(',').map((n) => n.trim());
  if (!t || names.some((n) => !n))
    return {
      ok: false,
      error: `${JSON.stringify(text)}: write "all", "none", or geofence names separated by commas (a name may hold * for any text, e.g. "Depot *,Customer site Penrith Plaza")`,
    };
  return { ok: true, value: { kind: 'chosen', names } };
}

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Whether a non-toll geofence of this name is kept by the selection. */
export function siteKept(sel: SiteSelection): (name: string | null) => boolean {
  if (sel.kind === 'all') return () => true;
  if (sel.kind === 'none') return () => false;
  const res = sel.names.map((n) => new RegExp(`^${n.split('*').map(escape).join('.*')}$`, 'i'));
  return (name) => name !== null && res.some((re) => re.test(name.trim()));
}

/** The selection as written in the plan's notes. */
export function describeSites(sel: SiteSelection): string {
  return sel.kind === 'chosen'
    ? `the sites named ${sel.names.map((n) => JSON.stringify(n)).join(', ')}`
    : sel.kind === 'all'
      ? 'every site'
      : 'no site';
}
