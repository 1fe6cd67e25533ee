-- Issue 44 (one revision's disk): ft_chunk stored every chunk's tokens twice, in its
-- content table and (as terms) in its index. The tokens now live once, packed, in
-- chunk_tokens (ragraf/store/packed.py: zlib of the JSON list of the four columns), with
-- the revision range, chunk id and path; ft_chunk becomes a contentless FTS5 index
-- (contentless_delete) of the same four token columns, its rowid the chunk_tokens row's.
-- Triggers keep the two in step: a row inserted into chunk_tokens is indexed, a row
-- deleted (undo, pruning) leaves the index; closing a range (rev_to) touches no term.
-- The rows keep their rowids and every column's value, so bm25 scores (the unindexed
-- columns weighed 0 and held no term) and their order are those of before.
-- ragraf_tokens / ragraf_token are SQL functions ragraf/store/db.py registers on every
-- connection (pack the four columns; read one back).
CREATE TABLE chunk_tokens (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, path TEXT,
  tokens BLOB NOT NULL              -- packed JSON [symbol, code, sql, text]
);
INSERT INTO chunk_tokens(rowid, rev_from, rev_to, chunk_id, path, tokens)
  SELECT rowid, rev_from, rev_to, chunk_id, path,
         ragraf_tokens(symbol_tokens, code_tokens, sql_tokens, text_tokens)
  FROM ft_chunk ORDER BY rowid;
DROP TABLE ft_chunk;
CREATE VIRTUAL TABLE ft_chunk USING fts5(
  symbol_tokens, code_tokens, sql_tokens, text_tokens,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61'
);
INSERT INTO ft_chunk(rowid, symbol_tokens, code_tokens, sql_tokens, text_tokens)
  SELECT rowid, ragraf_token(tokens, 0), ragraf_token(tokens, 1), ragraf_token(tokens, 2),
         ragraf_token(tokens, 3)
  FROM chunk_tokens ORDER BY rowid;
CREATE TRIGGER chunk_tokens_insert AFTER INSERT ON chunk_tokens BEGIN
  INSERT INTO ft_chunk(rowid, symbol_tokens, code_tokens, sql_tokens, text_tokens)
    VALUES (new.rowid, ragraf_token(new.tokens, 0), ragraf_token(new.tokens, 1),
            ragraf_token(new.tokens, 2), ragraf_token(new.tokens, 3));
END;
CREATE TRIGGER chunk_tokens_delete AFTER DELETE ON chunk_tokens BEGIN
  DELETE FROM ft_chunk WHERE rowid = old.rowid;
END;
