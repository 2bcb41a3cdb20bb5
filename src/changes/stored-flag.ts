/**
 * A release note stored as flagged: it changes or deprecates an endpoint the sync uses. GET
 * /api/changes sends these (src/server/api-types.ts); this module imports nothing, so the
 * dashboard's type check can read it.
 */
export interface StoredFlag {
  source: string;
  version: string;
  date: string;
  kind: string;
  endpoints: string[];
  /** The note's endpoints that the sync calls. */
  syncEndpoints: string[];
  text: string;
  firstSeenAt: string;
  acknowledged: boolean;
}
