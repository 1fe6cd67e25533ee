-- Issue 39.8: the archives are chained like the ledger. Each row holds the sha256 of its
-- report's text and a hash over its fields linked to the previous row's, so an edited
-- report body, a deleted row (in the middle: a broken link; at the tail: the head kept
-- outside .ragraf/) is found by verify. Rows written before have NULL here: verify
-- checks their reports for the ledger's chain head only, and says so.
ALTER TABLE drift_archive ADD COLUMN report_sha256 TEXT;
ALTER TABLE drift_archive ADD COLUMN prev_hash TEXT;
ALTER TABLE drift_archive ADD COLUMN archive_hash TEXT;
