-- Rows shared across revisions (issue 15; see graph 0005 and ragraf/store/ranges.py):
-- a lexicon row is in revision n when rev_from <= n < rev_to (1000000000: still open).
-- Earlier versions' full copies are converted: each revision's rows are visible until the
-- next revision present (the newest: open).
-- vec_meta becomes a cache keyed by content like the vectors themselves: one row per
-- chunk_id; which revision has a chunk (and so its vector) is chunk_map's range.
CREATE TEMP TABLE _rev_next AS
  WITH revs(n) AS (SELECT DISTINCT CAST(substr(rev_id, 5) AS INTEGER) FROM chunk_map)
  SELECT 'rev-' || printf('%04d', r.n) AS rev_id, r.n AS n,
         coalesce((SELECT min(q.n) FROM revs q WHERE q.n > r.n), 1000000000) AS next
  FROM revs r;
CREATE VIRTUAL TABLE _new_ft_chunk USING fts5(
  rev_from UNINDEXED, rev_to UNINDEXED, chunk_id UNINDEXED, path UNINDEXED,
  symbol_tokens, code_tokens, sql_tokens, text_tokens,
  tokenize = 'unicode61'
);
INSERT INTO _new_ft_chunk(rev_from, rev_to, chunk_id, path, symbol_tokens, code_tokens, sql_tokens, text_tokens)
  SELECT x.n, x.next, o.chunk_id, o.path, o.symbol_tokens, o.code_tokens, o.sql_tokens, o.text_tokens
  FROM ft_chunk o JOIN _rev_next x ON x.rev_id = o.rev_id;
DROP TABLE ft_chunk;
ALTER TABLE _new_ft_chunk RENAME TO ft_chunk;
CREATE TABLE _new_chunk_text (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, path TEXT, text TEXT NOT NULL
);
INSERT INTO _new_chunk_text(rev_from, rev_to, chunk_id, path, text)
  SELECT x.n, x.next, o.chunk_id, o.path, o.text FROM chunk_text o JOIN _rev_next x ON x.rev_id = o.rev_id;
DROP TABLE chunk_text;
ALTER TABLE _new_chunk_text RENAME TO chunk_text;
CREATE TABLE _new_chunk_map (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL,
  source_kind TEXT NOT NULL,        -- 'symbol' | 'file' | 'table' | 'route' | 'doc'
  path TEXT, node_id TEXT, start_line INTEGER, end_line INTEGER
);
INSERT INTO _new_chunk_map(rev_from, rev_to, chunk_id, source_kind, path, node_id, start_line, end_line)
  SELECT x.n, x.next, o.chunk_id, o.source_kind, o.path, o.node_id, o.start_line, o.end_line
  FROM chunk_map o JOIN _rev_next x ON x.rev_id = o.rev_id;
DROP TABLE chunk_map;
ALTER TABLE _new_chunk_map RENAME TO chunk_map;
CREATE TABLE _new_chunk_also (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, path TEXT, node_id TEXT, start_line INTEGER, end_line INTEGER
);
INSERT INTO _new_chunk_also(rev_from, rev_to, chunk_id, path, node_id, start_line, end_line)
  SELECT x.n, x.next, o.chunk_id, o.path, o.node_id, o.start_line, o.end_line
  FROM chunk_also o JOIN _rev_next x ON x.rev_id = o.rev_id;
DROP TABLE chunk_also;
ALTER TABLE _new_chunk_also RENAME TO chunk_also;
CREATE TABLE _new_vec_meta (
  chunk_id TEXT PRIMARY KEY,
  model TEXT NOT NULL, model_version TEXT, chunk_sha256 TEXT NOT NULL
);
INSERT INTO _new_vec_meta(chunk_id, model, model_version, chunk_sha256)
  SELECT chunk_id, model, model_version, chunk_sha256 FROM vec_meta o
  WHERE o.rev_id = (SELECT max(i.rev_id) FROM vec_meta i WHERE i.chunk_id = o.chunk_id);
DROP TABLE vec_meta;
ALTER TABLE _new_vec_meta RENAME TO vec_meta;
DROP TABLE _rev_next;
CREATE INDEX idx_chunk_text_id ON chunk_text(chunk_id);
CREATE INDEX idx_chunk_map_id ON chunk_map(chunk_id);
CREATE INDEX idx_chunk_map_node ON chunk_map(node_id);
CREATE INDEX idx_chunk_map_path ON chunk_map(path);
CREATE INDEX idx_chunk_also ON chunk_also(chunk_id);
