-- What the API announced for a window and what its answers held (src/api/paginate.ts): a window is
-- done only when its paged reads added up. `announced`: the records page 1's `meta.total` said
-- (summed over the window's paged reads; NULL where no read said, and on every row written
-- before this version); `kept`: the distinct records received; `duplicates`: records the API
-- listed a second time (the one expected difference: kept + duplicates = announced).
ALTER TABLE ledger ADD COLUMN announced INTEGER;
ALTER TABLE ledger ADD COLUMN kept INTEGER;
ALTER TABLE ledger ADD COLUMN duplicates INTEGER;
