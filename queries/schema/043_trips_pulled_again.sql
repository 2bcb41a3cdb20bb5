-- Trips stored before this version lack the wire's fields (trip_type, is_private, the event
-- counts, …, migration 042) and every private trip (the sync now asks with incl_private=true). Their
-- windows are pulled again once: marked incomplete, so the next run fills them whole (a trip is
-- upserted by its id, nothing stored is lost meanwhile; the days still count as pulled).
UPDATE ledger
SET status = 'incomplete',
    reason = 'stored before fleetsync kept the trips'' wire fields and private trips: pulled again'
WHERE stream = 'trips' AND status = 'done';
