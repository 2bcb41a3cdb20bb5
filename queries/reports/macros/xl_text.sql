-- xl_text(x): spreadsheet-safe text. A cell that begins with = + - @, a tab or a CR and does
-- not read as a number gets a leading apostrophe; "-12.5" stays as it is. (A first-character
-- test, not a regular expression: this runs on every text cell of a CSV. Not an IN list: DuckDB
-- plans a longer IN list as a join, which loses the report's row order.)
-- The first WHEN is the common case's shortcut (issue 29: ~0.2-0.3 s of CPU per 1 M trips): a
-- cell whose first byte is a letter or above ('A' and up, UTF-8's multi-byte characters included)
-- or one of . / 0-9 : ; < is none of the six, so it is the cell as it is, by two string
-- comparisons instead of a first character taken out and looked for.
CREATE OR REPLACE TEMP MACRO xl_text(x) AS
  CASE
    WHEN x IS NULL THEN NULL
    WHEN x::VARCHAR >= 'A' OR (x::VARCHAR >= '.' AND x::VARCHAR < '=') THEN x::VARCHAR
    WHEN x::VARCHAR <> '' AND contains('=+-@' || chr(9) || chr(13), left(x::VARCHAR, 1)) AND TRY_CAST(x::VARCHAR AS DOUBLE) IS NULL
      THEN '''' || x::VARCHAR
    ELSE x::VARCHAR
  END;
