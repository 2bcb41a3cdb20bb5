// Time on site: per depot or customer site and local day the visits, vehicles, time on site, the
// longest stay and the visits entered outside working hours (site_activity), with the drill-down
// from a site-day to its visits (site_visits; site=…&day=… in the URL, a link to share). A day
// not synced is blank, never 0; a visit still open has no dwell.
import { hrefWith, startPage } from './page.js';
import { dayText } from './table.js';

startPage({
  title: 'Sites',
  header: (box, _status, _filter, drill) => {
    box.replaceChildren();
    if (!drill.site || !drill.day) return;
    const nav = document.createElement('p');
    nav.id = 'breadcrumb';
    nav.className = 'breadcrumb';
    const back = document.createElement('a');
    back.href = hrefWith('sites.html', { site: null, day: null });
    back.textContent = 'All sites';
    const here = document.createElement('strong');
    here.textContent = `Visits on ${dayText(drill.day)}`;
    nav.append(back, ' › ', here);
    box.append(nav);
  },
  sections: [
    {
      id: 'visits',
      title: 'Visits to the site on the day',
      heading: (_f, d) => `Visits entered on ${dayText(d.day)}`,
      report: 'site_visits',
      when: (_f, d) => Boolean(d.site && d.day),
      query: (f, d) => ({
        vehicle: f.vehicle,
        department: f.department,
        site: d.site,
        from: d.day,
        to: d.day,
      }),
      note: 'Each visit entered on the local day: time on site from enter to exit (a stay overnight counts whole on the day it began). “Open” = the vehicle has not left yet: no time on site, not 0.',
      tableOpts: { hide: ['zone', 'geofence_id', 'local_date', 'department'] },
    },
    {
      id: 'site-hours',
      title: 'Time on site per site (h)',
      report: 'site_activity',
      when: (_f, d) => !d.site,
      note: 'Depots, customer sites and yards: every geofence that is not a toll geofence. Summed over the range; a visit counts on the local day it was entered.',
      chart: {
        type: 'bar',
        x: 'site',
        y: ['total_dwell_h'],
        labels: ['time on site (h)'],
        yTitle: 'h',
        horizontal: true,
      },
      table: false,
    },
    {
      id: 'activity',
      title: 'Visits per site and day',
      report: 'site_activity',
      when: (_f, d) => !d.site,
      note: 'Visits, vehicles, total and median time on site, the longest stay and the visits entered outside working hours (FLEETSYNC_WORKING_HOURS), per site and local day of entry. Blank = the day is not synced; 0 = synced, no visit. Click a site or its visits to see that day’s visits.',
      chart: {
        type: 'bar',
        x: 'day',
        y: ['visits', 'outside_hours_visits'],
        labels: ['visits', 'entered outside working hours'],
        yTitle: 'visits',
      },
      tableOpts: {
        hide: ['zone', 'geofence_id'],
        link: (col, r) =>
          (col === 'site' && r.visits !== null) || (col === 'visits' && Number(r.visits) > 0)
            ? hrefWith('sites.html', { site: String(r.geofence_id), day: String(r.day) })
            : null,
      },
    },
  ],
});
