-- The reason-code vocabulary (queries/models/reason_codes.sql) for the API and the dashboard:
-- what each code an export carries means. Not a report.
SELECT code, stream, label FROM reason_codes() ORDER BY stream, code;
