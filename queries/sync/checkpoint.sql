-- Writes the write-ahead log into the database file (src/store/checkpoint.ts): after a sync, so a
-- file that cannot grow (disk full, a file-size limit) is said at once, not at the next open.
CHECKPOINT;
