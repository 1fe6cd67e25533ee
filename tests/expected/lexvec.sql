-- lexvec.sqlite after its migrations (tests/test_store_schema.py)
-- migrations: 0001_init, 0002_rev_ranges, 0003_ui_text, 0004_ft_chunk_contentless

-- table _migrations
CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);

-- table chunk_also
CREATE TABLE "chunk_also" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, path TEXT, node_id TEXT, start_line INTEGER, end_line INTEGER
);

-- table chunk_map
CREATE TABLE "chunk_map" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL,
  source_kind TEXT NOT NULL,        -- 'symbol' | 'file' | 'table' | 'route' | 'doc'
  path TEXT, node_id TEXT, start_line INTEGER, end_line INTEGER
);

-- table chunk_text
CREATE TABLE "chunk_text" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, path TEXT, text TEXT NOT NULL
);

-- table chunk_tokens
CREATE TABLE chunk_tokens (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, path TEXT,
  tokens BLOB NOT NULL              -- packed JSON [symbol, code, sql, text]
);

-- trigger chunk_tokens_delete
CREATE TRIGGER chunk_tokens_delete AFTER DELETE ON chunk_tokens BEGIN
  DELETE FROM ft_chunk WHERE rowid = old.rowid;
END;

-- trigger chunk_tokens_insert
CREATE TRIGGER chunk_tokens_insert AFTER INSERT ON chunk_tokens BEGIN
  INSERT INTO ft_chunk(rowid, symbol_tokens, code_tokens, sql_tokens, text_tokens)
    VALUES (new.rowid, ragraf_token(new.tokens, 0), ragraf_token(new.tokens, 1),
            ragraf_token(new.tokens, 2), ragraf_token(new.tokens, 3));
END;

-- table ft_chunk
CREATE VIRTUAL TABLE ft_chunk USING fts5(
  symbol_tokens, code_tokens, sql_tokens, text_tokens,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61'
);

-- table ft_chunk_config (shadow table of ft_chunk)

-- table ft_chunk_data (shadow table of ft_chunk)

-- table ft_chunk_docsize (shadow table of ft_chunk)

-- table ft_chunk_idx (shadow table of ft_chunk)

-- table ft_ui
CREATE VIRTUAL TABLE ft_ui USING fts5(
  rev_from UNINDEXED, rev_to UNINDEXED, chunk_id UNINDEXED, path UNINDEXED,
  ui_tokens,
  tokenize = 'unicode61'
);

-- table ft_ui_config (shadow table of ft_ui)

-- table ft_ui_content (shadow table of ft_ui)

-- table ft_ui_data (shadow table of ft_ui)

-- table ft_ui_docsize (shadow table of ft_ui)

-- table ft_ui_idx (shadow table of ft_ui)

-- index idx_chunk_also
CREATE INDEX idx_chunk_also ON chunk_also(chunk_id);

-- index idx_chunk_map_id
CREATE INDEX idx_chunk_map_id ON chunk_map(chunk_id);

-- index idx_chunk_map_node
CREATE INDEX idx_chunk_map_node ON chunk_map(node_id);

-- index idx_chunk_map_path
CREATE INDEX idx_chunk_map_path ON chunk_map(path);

-- index idx_chunk_text_id
CREATE INDEX idx_chunk_text_id ON chunk_text(chunk_id);

-- index sqlite_autoindex__migrations_1 (automatic)

-- index sqlite_autoindex_vec_chunk_info_1 (automatic)

-- index sqlite_autoindex_vec_chunk_metadatachunks00_1 (automatic)

-- index sqlite_autoindex_vec_chunk_metadatatext00_1 (automatic)

-- index sqlite_autoindex_vec_chunk_rowids_1 (automatic)

-- index sqlite_autoindex_vec_chunk_vector_chunks00_1 (automatic)

-- index sqlite_autoindex_vec_meta_1 (automatic)

-- table sqlite_sequence
CREATE TABLE sqlite_sequence(name,seq);

-- table vec_chunk
CREATE VIRTUAL TABLE vec_chunk USING vec0(chunk_id TEXT PRIMARY KEY, rev_id TEXT, embedding FLOAT[384]);

-- table vec_chunk_chunks (shadow table of vec_chunk)

-- table vec_chunk_info (shadow table of vec_chunk)

-- table vec_chunk_metadatachunks00 (shadow table of vec_chunk)

-- table vec_chunk_metadatatext00 (shadow table of vec_chunk)

-- table vec_chunk_rowids (shadow table of vec_chunk)

-- table vec_chunk_vector_chunks00 (shadow table of vec_chunk)

-- table vec_meta
CREATE TABLE "vec_meta" (
  chunk_id TEXT PRIMARY KEY,
  model TEXT NOT NULL, model_version TEXT, chunk_sha256 TEXT NOT NULL
);
