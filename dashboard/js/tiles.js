// A KPI tile: a value ('' = unknown, shown as '—', never 0), its label and an optional line
// under it saying what the figure covers or leaves out. Used by the overview's tiles.

/**
 * @param {string} id the tile's element id is `kpi-<id>`
 * @param {string} label
 * @param {string} value '' for unknown
 * @param {string} [sub]
 */
export function tile(id, label, value, sub) {
  const d = document.createElement('div');
  d.className = 'tile';
  d.id = `kpi-${id}`;
  const v = document.createElement('div');
  v.className = 'value';
  v.textContent = value === '' ? '—' : value;
  const l = document.createElement('div');
  l.className = 'label';
  l.textContent = label;
  d.append(v, l);
  if (sub) {
    const s = document.createElement('div');
    s.className = 'sub';
    s.textContent = sub;
    d.append(s);
  }
  return d;
}
