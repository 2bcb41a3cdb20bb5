/**
 * The Fleet API's release notes as the simulator publishes them (spec Versioning §1–5, contract
 * "Release notes feed"): releases with bullets grouped by section, turned into
 * - change records, one per bullet, with the §3 fields (`version`, `date`, `kind`, `section`,
 *   `area`, `contract`, `endpoints`, `breaking`, `text`), and
 * - a JSON Feed 1.1 of the latest 20 releases, newest first.
 *
 * `kind` follows the section (New Features → feature, Improvements → improvement, Bug Fixes →
 * fix, Breaking Changes → breaking), except that a bullet that deprecates or removes an endpoint
 * from the reference is `deprecation` (flag `deprecation: true`, or text that says so).
 * `breaking` is true for the Breaking Changes section. Old releases (before 2026) carry no area.
 */

export const SECTIONS = ['New Features', 'Improvements', 'Bug Fixes', 'Breaking Changes'] as const;
export type Section = (typeof SECTIONS)[number];
export type ChangeKind = 'feature' | 'improvement' | 'fix' | 'deprecation' | 'breaking' | 'other';

export interface ReleaseNote {
  section: Section;
  /** Markdown. */
  text: string;
  /** `METHOD /path` as the reference writes it. */
  endpoints?: string[];
  area?: string | null;
  /** The bullet deprecates or removes an endpoint from the reference. */
  deprecation?: boolean;
}

export interface Release {
  /** Four dot-separated numbers, e.g. `1.26.0824.1`. */
  version: string;
  /** YYYY-MM-DD. */
  date: string;
  notes: ReleaseNote[];
}

export interface ChangeRecord {
  version: string;
  date: string;
  kind: ChangeKind;
  section: Section;
  area: string | null;
  contract: string[];
  endpoints: string[];
  breaking: boolean;
  text: string;
}

export const FEED_SIZE = 20;
const SECTION_KIND: Record<Section, ChangeKind> = {
  'New Features': 'feature',
  Improvements: 'improvement',
  'Bug Fixes': 'fix',
  'Breaking Changes': 'breaking',
};
const DEPRECATES = /\b(deprecat\w*|removed? from the (api )?reference|(left|leaves) the reference)\b/i;

export function kindOf(note: ReleaseNote): ChangeKind {
  if (note.deprecation ?? DEPRECATES.test(note.text)) return 'deprecation';
  return SECTION_KIND[note.section] ?? 'other';
}

const versionKey = (v: string) =>
  v
    .split('.')
    .map((n) => n.padStart(6, '0'))
    .join('.');

/** Newest first (date, then version), at most `n`. */
export function latestReleases(releases: readonly Release[], n = FEED_SIZE): Release[] {
  return [...releases]
    .sort(
      (a, b) => b.date.localeCompare(a.date) || versionKey(b.version).localeCompare(versionKey(a.version)),
    )
    .slice(0, n);
}

export function recordsOf(releases: readonly Release[]): ChangeRecord[] {
  return latestReleases(releases).flatMap((r) =>
    [...r.notes]
      .sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section))
      .map((n) => ({
        version: r.version,
        date: r.date,
        kind: kindOf(n),
        section: n.section,
        area: n.area ?? null,
        contract: ['v1'],
        endpoints: [...(n.endpoints ?? [])],
        breaking: n.section === 'Breaking Changes',
        text: n.text,
      })),
  );
}

/** JSON Feed 1.1 (https://jsonfeed.org/version/1.1) of the latest 20 releases. */
export function jsonFeedOf(releases: readonly Release[], origin: string) {
  return {
    version: 'https://jsonfeed.org/version/1.1',
    title: 'Fleet API release notes',
    home_page_url: `${origin}/changelog/`,
    feed_url: `${origin}/changelog.json`,
    description: 'Release notes of the Fleet REST API, latest 20 releases, newest first.',
    language: 'en',
    items: latestReleases(releases).map((r) => {
      const bySection = SECTIONS.map((s) => ({ s, notes: r.notes.filter((n) => n.section === s) })).filter(
        (x) => x.notes.length > 0,
      );
      const md = bySection
        .map((x) => `## ${x.s}\n\n${x.notes.map((n) => `- ${n.text}`).join('\n')}`)
        .join('\n\n');
      return {
        id: `v${r.version}`,
        url: `${origin}/changelog/v${r.version}/`,
        title: `v${r.version}`,
        content_text: md,
        date_published: `${r.date}T00:00:00Z`,
        tags: bySection.map((x) => x.s),
        _fleet_api: {
          version: r.version,
          breaking: r.notes.some((n) => n.section === 'Breaking Changes'),
          endpoints: [...new Set(r.notes.flatMap((n) => n.endpoints ?? []))],
        },
      };
    }),
  };
}

const note = (
  section: Section,
  text: string,
  endpoints: string[] = [],
  extra: Partial<ReleaseNote> = {},
): ReleaseNote => ({ section, text, endpoints, ...extra });

/** The latest release's changes, as spec Versioning §5 lists them. */
export const LATEST_RELEASE: Release = {
  version: '1.26.0824.1',
  date: '2026-08-24',
  notes: [
    note(
      'New Features',
      '`is_toll` on geofences and the `filter[is_toll]` query on the geofence list and visits.',
      ['GET /geofences', 'GET /geofences/{geofence_id}', 'GET /geofences/visits'],
      { area: 'Geofences' },
    ),
    note(
      'Bug Fixes',
      '`GET /delivery/jobs` no longer answers 500 for some accounts.',
      ['GET /delivery/jobs'],
      {
        area: 'Delivery',
      },
    ),
    note(
      'Bug Fixes',
      '`GET /rest/trips`: the pagination metadata of page 2 and later is correct.',
      ['GET /rest/trips'],
      { area: 'Trips' },
    ),
    note(
      'Improvements',
      'Vision POST operations answer 404 instead of 422 for a registration that does not exist or that the account cannot access.',
      ['POST /vision/livestream/{registration}', 'POST /vision/video/upload', 'POST /vision/videos/requests'],
      { area: 'Vision' },
    ),
    note(
      'Improvements',
      '`GET /carpool/vehicles/availability`: the reference states which filter is required.',
      ['GET /carpool/vehicles/availability'],
      { area: 'Carpool' },
    ),
    note(
      'Improvements',
      'The immobilise endpoints were removed from the reference; they are still served to existing callers. New integrations use the start-inhibit endpoints.',
      ['PUT /vehicles/{registration}/immobilise', 'GET /vehicles/immobilise/status'],
      { area: 'Vehicles', deprecation: true },
    ),
  ],
};

/** Earlier releases (before 2026 without an area). */
const EARLIER: Release[] = [
  {
    version: '1.24.0221.1',
    date: '2024-02-21',
    notes: [note('Improvements', 'The vehicle list carries `sensors`.', ['GET /vehicles'])],
  },
  {
    version: '1.24.0402.1',
    date: '2024-04-02',
    notes: [note('New Features', 'Fuel fills for all vehicles.', ['GET /fuel/fills'])],
  },
  {
    version: '1.24.0702.1',
    date: '2024-07-02',
    notes: [
      note('New Features', 'Alerts API.', ['GET /alerts/notifications']),
      note('Improvements', 'CORS deactivated: browsers may call the API.'),
    ],
  },
  {
    version: '1.24.0815.1',
    date: '2024-08-15',
    notes: [
      note('Bug Fixes', 'Odometer readings report the last event time.', [
        'GET /vehicles/{registration}/odometer',
      ]),
    ],
  },
  {
    version: '1.24.0910.1',
    date: '2024-09-10',
    notes: [note('New Features', 'Vision API: camera status.', ['GET /vision/status'])],
  },
  {
    version: '1.24.1022.1',
    date: '2024-10-22',
    notes: [
      note('Improvements', '429 answers carry `X-RateLimit-Retry-At` and `X-RateLimit-Retry-After-Seconds`.'),
    ],
  },
  {
    version: '1.24.1119.1',
    date: '2024-11-19',
    notes: [
      note('Bug Fixes', 'Fuel level estimates flag readings not yet reprocessed.', [
        'GET /fuel/level/{registration}',
      ]),
    ],
  },
  {
    version: '1.24.1210.1',
    date: '2024-12-10',
    notes: [
      note('New Features', 'EV consumption, range and state of charge for several vehicles.', [
        'POST /vehicles/ev-consumption',
        'POST /vehicles/range',
        'POST /vehicles/soc',
      ]),
    ],
  },
  {
    version: '1.25.0121.1',
    date: '2025-01-21',
    notes: [note('Improvements', '`odometer_in_km=true` on the vehicle status.', ['GET /vehicles/status'])],
  },
  {
    version: '1.25.0218.1',
    date: '2025-02-18',
    notes: [
      note('Bug Fixes', 'Private trips return the reduced data set.', [
        'GET /trips',
        'GET /trips/{registration}',
      ]),
    ],
  },
  {
    version: '1.25.0325.1',
    date: '2025-03-25',
    notes: [
      note('New Features', 'Bulk upload of delivery jobs with an optional `webhooks_url` callback.', [
        'POST /delivery/jobs/bulk-upload',
      ]),
    ],
  },
  {
    version: '1.25.0429.1',
    date: '2025-04-29',
    notes: [
      note('New Features', 'AEMP and Tachograph (beta).'),
      note('Improvements', 'Delivery `schedule_type_id` accepts 2 and 3 only.', ['POST /delivery/jobs']),
    ],
  },
  {
    version: '1.25.0612.1',
    date: '2025-06-12',
    notes: [note('New Features', 'Delivery planning and reminders.', ['GET /delivery/jobs'])],
  },
  {
    version: '1.25.0715.1',
    date: '2025-07-15',
    notes: [
      note('Bug Fixes', '`duration_total` of geofence visits is in seconds.', ['GET /geofences/visits']),
    ],
  },
  {
    version: '1.25.0902.1',
    date: '2025-09-02',
    notes: [
      note('Improvements', 'Own rate-limit buckets for vehicle events.', [
        'GET /vehicles/events',
        'GET /vehicles/{registration}/events',
      ]),
    ],
  },
  {
    version: '1.25.1014.1',
    date: '2025-10-14',
    notes: [
      note('New Features', 'Carpool bookings and vehicles.', [
        'GET /carpool/bookings',
        'GET /carpool/vehicles',
      ]),
    ],
  },
  {
    version: '1.25.1125.1',
    date: '2025-11-25',
    notes: [
      note('New Features', 'Carpool drivers: list and update.', [
        'GET /carpool/drivers',
        'PATCH /carpool/drivers/{driver_id}',
      ]),
    ],
  },
  {
    version: '1.26.0120.1',
    date: '2026-01-20',
    notes: [
      note(
        'Improvements',
        'A command sent again to the same vehicle within 30 seconds answers 409 with `Retry-After`.',
        ['PUT /vehicles/{registration}/central-locking', 'POST /vehicles/commands/{registration}'],
        { area: 'Vehicles' },
      ),
    ],
  },
  {
    version: '1.26.0305.2',
    date: '2026-03-05',
    notes: [
      note('Improvements', 'Kenya moved to its own base URL domain.', [], { area: 'General' }),
      note(
        'Improvements',
        'Delivery driver `login_username` and `password` are deprecated in favour of `pin_code`.',
        ['POST /delivery/drivers'],
        {
          area: 'Delivery',
        },
      ),
    ],
  },
  {
    version: '1.26.0420.1',
    date: '2026-04-20',
    notes: [
      note(
        'New Features',
        'Carpool booking rules.',
        ['GET /carpool/rules', 'PATCH /carpool/rules/{booking_rule_id}'],
        { area: 'Carpool' },
      ),
    ],
  },
  {
    version: '1.26.0622.1',
    date: '2026-06-22',
    notes: [
      note(
        'Improvements',
        'Idling events have their own bucket of 200 per minute.',
        ['GET /vehicles/{registration}/events/idling'],
        { area: 'Vehicles' },
      ),
    ],
  },
];

/** The releases the simulator publishes by default (22; the feeds show the latest 20). */
export const DEFAULT_RELEASES: readonly Release[] = [...EARLIER, LATEST_RELEASE];
