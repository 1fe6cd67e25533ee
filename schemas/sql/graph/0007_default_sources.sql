-- Issue 44 (one revision's disk): 135 000 of WordPress's 144 000 edges carried the same
-- sources list, '["tree-sitter"]'. It is stored as '' now (ragraf/store/graph/cols.py:
-- DEFAULT_SOURCES; readers read '' back as the list): the rows of every retained revision
-- take the new form here, so the next build's delta sees them unchanged.
UPDATE edge SET sources = '' WHERE sources = '["tree-sitter"]';
