-- The user-facing text of a chunk (issue 46): the literal arguments of its translation,
-- exception and log calls (ragraf/lang/php/ui_strings.py), tokenized like ft_chunk's
-- columns; a search channel of its own. Rows only for chunks that have such text, shared
-- by revisions like ft_chunk's (rev_from <= n < rev_to).
CREATE VIRTUAL TABLE ft_ui USING fts5(
  rev_from UNINDEXED, rev_to UNINDEXED, chunk_id UNINDEXED, path UNINDEXED,
  ui_tokens,
  tokenize = 'unicode61'
);
