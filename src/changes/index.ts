/** API change watch: the public surface for the sync, the CLI and the dashboard. */
export { acknowledgeFlaggedChanges, checkApiChanges, flagOf, listFlaggedChanges } from './check.ts';
export type { ChangeCheck, CheckOptions, FlaggedChange, NewRelease, StoredFlag } from './check.ts';
export { SYNC_ENDPOINTS, endpointKey, sameEndpoint, syncEndpointsIn } from './endpoints.ts';
export { fetchRecords, parseRecords } from './feed.ts';
export type { ChangeKind, ChangeRecord } from './feed.ts';
export { CHANGELOG_ENV, DEFAULT_CHANGELOG_URL, changelogUrlFor } from './url.ts';
export { checkApiChangesAfterSync } from './after-sync.ts';
