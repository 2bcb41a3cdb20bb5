// A KPI tile: a value (an unknown value shows '—', never 0), its label and a line under it.

/**
 * @param {string} id the element id
 * @param {string} label
 * @param {string} value '' when unknown
 * @param {string} [sub] none when omitted or ''
 */
export function tile(id, label, value, sub) {
  const d = document.createElement('div');
  d.className = 'tile';
  d.id = id;
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
