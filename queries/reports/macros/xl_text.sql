-- xl_text(x): spreadsheet-safe text. A cell that begins with = + - @, a tab or a CR and does
-- not read as a number gets a leading apostrophe; "-12.5" stays as it is.
CREATE OR REPLACE TEMP MACRO xl_text(x) AS
  CASE
    WHEN x IS NULL THEN NULL
    WHEN regexp_matches(x::VARCHAR, '^[=+\-@\t\r]') AND TRY_CAST(x::VARCHAR AS DOUBLE) IS NULL
      THEN '''' || x::VARCHAR
    ELSE x::VARCHAR
  END;
