-- Whether account $1 has anything a rebuild of its toll-passage facts reads or replaces: a stored
-- geofence visit (the passages are computed from them) or a stored `visits` fact.
SELECT EXISTS (SELECT 1 FROM geofence_visits WHERE account = $1)
  OR EXISTS (SELECT 1 FROM daily_facts WHERE account = $1 AND stream = 'visits') AS any
