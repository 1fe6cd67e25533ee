-- The data-flow layer (issue 13, built with tree-sitter: no JVM). One row per flow unit
-- (a function, method, closure or file-level script): its statements (line, end line,
-- kind, control dependence, definitions, uses, calls, sinks), its control-flow edges and
-- its def-use edges as the compact JSON the extractor wrote (ragraf.lang.php.flow).
-- Why not a row per edge in cfg_edge / dfg_edge: phpMyAdmin has ~40 000 statements and
-- ~100 000 def-use edges; a row each, with the indexes a slice needs, measured 1.3 s of
-- writes per 100 000 rows on the reference machine, more than the whole structural write
-- stage (0.5 s) and beyond the 1.3x index-time budget. A slice reads one unit per function
-- it crosses, so one row per unit is also what the query needs. cfg_edge / dfg_edge stay
-- in the schema for a CPG (Joern) that may fill them one day.
CREATE TABLE flow_unit (
  rev_id TEXT NOT NULL,
  unit_id TEXT NOT NULL,            -- '<path>#<n>': the n-th unit of the file (0: its script)
  func_node_id TEXT NOT NULL,       -- the function / method; the enclosing one of a closure; the file node of a script
  path TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  kind TEXT NOT NULL,               -- function | method | closure | script
  data TEXT NOT NULL,               -- JSON {s: statements, c: control flow, d: def-use, o / x: links to / from other units of the file}
  sources TEXT,                     -- taint sources its statements read ('$_GET php://input'), NULL: none
  PRIMARY KEY (rev_id, unit_id)
);
CREATE INDEX idx_flow_unit_path ON flow_unit(rev_id, path, start_line);
CREATE INDEX idx_flow_unit_func ON flow_unit(rev_id, func_node_id);
