-- The end of the account's last finished run, in epoch ms (NULL when none): its requests may still
-- count in the API's rate-limit windows when the next run starts (another process, another worker).
SELECT epoch_ms(max(ended_at)) AS ended_ms FROM runs WHERE account = $1 AND ended_at IS NOT NULL;
