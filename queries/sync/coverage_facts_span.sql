-- The instants an account's ledger windows span: what a rebuild computes the coverage of.
SELECT min(window_start) AS first_start, max(window_end) AS last_end FROM ledger WHERE account = $1;
