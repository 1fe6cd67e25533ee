-- lexvec.sqlite: lexicon and vectors (architecture §4.2).
-- ft_chunk holds TOKENIZED forms only; its column order is part of the contract
-- (bm25 weights in ragraf/store/lexvec.py number exactly these columns).
-- vec_chunk (sqlite-vec) is created by ragraf/store/vec.py, the only module
-- that loads the extension.
CREATE VIRTUAL TABLE ft_chunk USING fts5(
  rev_id UNINDEXED, chunk_id UNINDEXED, path UNINDEXED,
  symbol_tokens, code_tokens, sql_tokens, text_tokens,
  tokenize = 'unicode61'
);
CREATE TABLE chunk_text (
  rev_id TEXT NOT NULL, chunk_id TEXT NOT NULL,
  path TEXT, text TEXT NOT NULL,
  PRIMARY KEY (rev_id, chunk_id)
);
CREATE TABLE chunk_map (
  rev_id TEXT NOT NULL, chunk_id TEXT NOT NULL,
  source_kind TEXT NOT NULL,        -- 'symbol' | 'file' | 'table' | 'route' | 'doc'
  path TEXT, node_id TEXT, start_line INTEGER, end_line INTEGER,
  PRIMARY KEY (rev_id, chunk_id)
);
CREATE INDEX idx_chunk_map_node ON chunk_map(rev_id, node_id);
CREATE INDEX idx_chunk_map_path ON chunk_map(rev_id, path);
-- extension: further locations of a chunk whose content occurs more than once
CREATE TABLE chunk_also (
  rev_id TEXT NOT NULL, chunk_id TEXT NOT NULL,
  path TEXT, node_id TEXT, start_line INTEGER, end_line INTEGER
);
CREATE INDEX idx_chunk_also ON chunk_also(rev_id, chunk_id);
CREATE TABLE vec_meta (
  rev_id TEXT NOT NULL, chunk_id TEXT NOT NULL,
  model TEXT NOT NULL, model_version TEXT, chunk_sha256 TEXT NOT NULL,
  PRIMARY KEY (rev_id, chunk_id)
);
