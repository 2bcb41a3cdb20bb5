-- Driver scorecards per driver × local month (the local months the range touches; issue 27). The
-- rules are the model's (queries/models/driver_scores.sql): trips by their start's local month,
-- distance from the trips' own distance, harsh braking / acceleration / cornering and speeding
-- over the road's limit (events and minutes), each per 100 km, and the score
-- max(0, 100 − Σ weight × rate per 100 km) with the weights of FLEETSYNC_SCORE_WEIGHTS.
-- Rank: within the month, among the drivers (not the "no driver recorded" row) with at least
-- FLEETSYNC_SCORE_MIN_KM km and a known score, best score first (equal scores share a rank);
-- not_ranked says why a row has none. score_change: the score minus the driver's score of the
-- month before (blank when either is unknown). Every known driver has a row per month; the trips
-- without a driver id are the "no driver recorded" row. A month whose trips are not synced at all
-- is blank, never 0; a count is blank when a trip of the month lacks it (trips_without_counts).
-- coverage / covered_share: of the month's ended local days, those the trips stream settled
-- (fleet_stream_month_coverage, queries/models/coverage.sql), as in `drivers`; 'partial' while a
-- day is missing or still open for late data, 'not_synced' when none was pulled.
WITH
months AS (SELECT * FROM local_month_list($zone, months_back($from_day, 1), $to_day)),
dm AS (
  SELECT *, driver_score(braking, acceleration, cornering, speeding, speeding_min, km,
    $w_braking, $w_acceleration, $w_cornering, $w_speeding, $w_speeding_min) AS score
  FROM driver_months($account, $zone, months_back($from_day, 1), months_last_day($to_day),
    $vehicle::BIGINT, $department::VARCHAR)
),
led AS (
  SELECT window_start, window_end FROM ledger
  WHERE account = $account AND stream = 'trips' AND status IN ('done', 'flagged', 'incomplete')
),
cov AS (
  SELECT months.period,
    EXISTS (SELECT 1 FROM led WHERE led.window_start < months.t1 AND led.window_end > months.t0) AS synced
  FROM months
),
ids AS (
  SELECT driver_id FROM driver_names($account)
  UNION SELECT driver_id FROM dm
  UNION SELECT NULL
),
names AS (SELECT * FROM driver_names($account)),
days AS (SELECT * FROM fleet_stream_month_coverage($account, $zone, $from_day, $to_day, $now, 'trips')),
g AS (
  SELECT
    ids.driver_id,
    cov.period,
    cov.synced,
    CASE WHEN cov.synced THEN coalesce(dm.km, 0) END AS km,
    CASE WHEN cov.synced THEN coalesce(dm.trips, 0) END AS trips,
    CASE WHEN cov.synced THEN coalesce(dm.trips_without_counts, 0) END AS trips_without_counts,
    CASE WHEN cov.synced THEN coalesce(dm.braking, if(dm.trips IS NULL, 0, NULL)) END AS braking,
    CASE WHEN cov.synced THEN coalesce(dm.acceleration, if(dm.trips IS NULL, 0, NULL)) END AS acceleration,
    CASE WHEN cov.synced THEN coalesce(dm.cornering, if(dm.trips IS NULL, 0, NULL)) END AS cornering,
    CASE WHEN cov.synced THEN coalesce(dm.speeding, if(dm.trips IS NULL, 0, NULL)) END AS speeding,
    CASE WHEN cov.synced THEN coalesce(dm.speeding_min, if(dm.trips IS NULL, 0, NULL)) END AS speeding_min,
    CASE WHEN cov.synced THEN dm.score END AS score
  FROM ids
  CROSS JOIN cov
  LEFT JOIN dm ON dm.driver_id IS NOT DISTINCT FROM ids.driver_id AND dm.period = cov.period
),
r AS (
  SELECT
    g.*,
    CASE
      WHEN NOT g.synced THEN 'not_synced'
      WHEN g.driver_id IS NULL THEN 'no_driver'
      WHEN g.km < $score_min_km THEN 'below_min_km'
      WHEN g.score IS NULL THEN 'unknown_counts'
    END AS not_ranked
  FROM g
),
ranked AS (
  SELECT
    r.*,
    CASE WHEN r.not_ranked IS NULL
      THEN rank() OVER (PARTITION BY r.period, r.not_ranked IS NULL ORDER BY r.score DESC) END AS rank,
    count(*) FILTER (WHERE r.not_ranked IS NULL) OVER (PARTITION BY r.period) AS ranked_drivers,
    lag(r.score) OVER (PARTITION BY r.driver_id ORDER BY r.period) AS previous_score
  FROM r
)
SELECT
  ranked.driver_id,
  CASE WHEN ranked.driver_id IS NULL THEN 'no driver recorded' ELSE names.driver_name END AS driver_name,
  ranked.period,
  round(ranked.km, 3)::DOUBLE AS distance_km,
  ranked.trips::INTEGER AS trips,
  ranked.braking::INTEGER AS harsh_braking_events,
  round(per_100km(ranked.braking, ranked.km), 2)::DOUBLE AS harsh_braking_per_100km,
  ranked.acceleration::INTEGER AS harsh_acceleration_events,
  round(per_100km(ranked.acceleration, ranked.km), 2)::DOUBLE AS harsh_acceleration_per_100km,
  ranked.cornering::INTEGER AS harsh_cornering_events,
  round(per_100km(ranked.cornering, ranked.km), 2)::DOUBLE AS harsh_cornering_per_100km,
  ranked.speeding::INTEGER AS speeding_events,
  round(per_100km(ranked.speeding, ranked.km), 2)::DOUBLE AS speeding_per_100km,
  round(ranked.speeding_min, 2)::DOUBLE AS speeding_min,
  round(per_100km(ranked.speeding_min, ranked.km), 2)::DOUBLE AS speeding_min_per_100km,
  ranked.score::DOUBLE AS score,
  ranked.rank::INTEGER AS rank,
  CASE WHEN ranked.synced THEN ranked.ranked_drivers END::INTEGER AS ranked_drivers,
  ranked.not_ranked,
  round(ranked.score - ranked.previous_score, 1)::DOUBLE AS score_change,
  ranked.trips_without_counts::INTEGER AS trips_without_counts,
  $zone::VARCHAR AS zone,
  fleet_coverage_label(coalesce(days.synced_days, 0), coalesce(days.pulled_days, 0), coalesce(days.range_days, 0))
    AS coverage,
  round(days.synced_days / nullif(days.range_days, 0), 4)::DOUBLE AS covered_share
FROM ranked
LEFT JOIN names ON names.driver_id = ranked.driver_id
LEFT JOIN days ON days.period = ranked.period
WHERE ranked.period >= month_of_day($from_day)
ORDER BY ranked.period, ranked.rank NULLS LAST, ranked.driver_id IS NULL, names.driver_name NULLS LAST, ranked.driver_id;
