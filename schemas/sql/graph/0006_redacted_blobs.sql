-- Issue 39.11: credentials are redacted from every text ragraf keeps (ragraf/redact.py).
-- A blob written before carries its file's text as it was: readers redact it when they
-- read it, and the next build writes it again redacted (the sealed revision's answers
-- are the same either way: redaction changes no line).
ALTER TABLE file_blob ADD COLUMN redacted INTEGER NOT NULL DEFAULT 0;
