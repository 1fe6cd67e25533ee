-- Call sites the resolver could not attach to a declaration, kept so that an answer
-- about a function or method can say which same-name call sites it could not account
-- for (and why) instead of returning fewer callers in silence. Only names some corpus
-- declaration has are kept: no answer can ask about the others.
CREATE TABLE unresolved_call (
  rev_id TEXT NOT NULL,
  name TEXT NOT NULL,               -- lower-case short name of the called function/method
  kind TEXT NOT NULL,               -- function | method | static
  src TEXT NOT NULL,                -- the calling node
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  reason TEXT NOT NULL,             -- ragraf.kinds.Unresolved
  detail TEXT                       -- the external class, the number of candidates, ...
);
CREATE INDEX idx_unresolved_call_name ON unresolved_call(rev_id, name);
