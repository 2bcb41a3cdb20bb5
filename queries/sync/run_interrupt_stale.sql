-- A `running` row left by a killed process is marked interrupted when the next run starts: $1 account.
UPDATE runs SET outcome = 'interrupted', ended_at = now() WHERE account = $1 AND outcome = 'running'
