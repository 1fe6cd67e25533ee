-- graph.sqlite after its migrations (tests/test_store_schema.py)
-- migrations: 0001_init, 0002_file_text_and_nocase, 0003_unresolved_call, 0004_flow_unit

-- table _migrations
CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);

-- table cfg_edge
CREATE TABLE cfg_edge (
  rev_id TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL,
  func_node_id TEXT NOT NULL, edge_order INTEGER
);

-- table coverage
CREATE TABLE coverage (
  rev_id TEXT NOT NULL, metric TEXT NOT NULL, value REAL, note TEXT
);

-- table db_column
CREATE TABLE db_column (
  rev_id TEXT NOT NULL, table_id TEXT NOT NULL, column_name TEXT NOT NULL,
  data_type TEXT, is_nullable INTEGER, column_key TEXT
);

-- table db_fk
CREATE TABLE db_fk (
  rev_id TEXT NOT NULL, from_table TEXT NOT NULL, from_column TEXT NOT NULL,
  to_table TEXT NOT NULL, to_column TEXT NOT NULL
);

-- table db_table
CREATE TABLE db_table (
  rev_id TEXT NOT NULL, table_id TEXT NOT NULL, table_name TEXT NOT NULL,
  engine TEXT, row_estimate INTEGER, source TEXT NOT NULL,
  PRIMARY KEY (rev_id, table_id)
);

-- table dfg_edge
CREATE TABLE dfg_edge (
  rev_id TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL,
  var_name TEXT, evidence_line INTEGER
);

-- table edge
CREATE TABLE edge (
  rev_id TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL,
  provenance TEXT NOT NULL,         -- 'stated' | 'derived'
  evidence_path TEXT, evidence_line INTEGER,
  confidence REAL NOT NULL,
  sources TEXT NOT NULL,            -- JSON list
  edge_uid TEXT NOT NULL,
  props TEXT,                       -- extension: JSON flags (conditional, magic, via)
  PRIMARY KEY (rev_id, edge_uid)
);

-- table file
CREATE TABLE file (
  rev_id TEXT NOT NULL, path TEXT NOT NULL,
  lang TEXT, lines INTEGER, sha256 TEXT NOT NULL,
  parse_status TEXT NOT NULL,       -- 'ok' | 'partial' | 'failed' | 'skipped'
  parse_note TEXT,
  size INTEGER, mtime_ns INTEGER,   -- extension: cheap no-change pre-check
  PRIMARY KEY (rev_id, path)
);

-- table file_blob
CREATE TABLE file_blob (
  sha256 TEXT PRIMARY KEY,
  data BLOB NOT NULL                -- zlib-compressed UTF-8 text
);

-- table file_facts
CREATE TABLE file_facts (
  sha256 TEXT NOT NULL, extractor TEXT NOT NULL, facts BLOB NOT NULL,
  PRIMARY KEY (sha256, extractor)
);

-- table flow_unit
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

-- index idx_edge_dst
CREATE INDEX idx_edge_dst ON edge(rev_id, dst, kind);

-- index idx_edge_evidence
CREATE INDEX idx_edge_evidence ON edge(rev_id, evidence_path);

-- index idx_edge_src
CREATE INDEX idx_edge_src ON edge(rev_id, src, kind);

-- index idx_flow_unit_func
CREATE INDEX idx_flow_unit_func ON flow_unit(rev_id, func_node_id);

-- index idx_flow_unit_path
CREATE INDEX idx_flow_unit_path ON flow_unit(rev_id, path, start_line);

-- index idx_node_fqn
CREATE INDEX idx_node_fqn ON node(rev_id, fqn);

-- index idx_node_fqn_nocase
CREATE INDEX idx_node_fqn_nocase ON node(rev_id, fqn COLLATE NOCASE);

-- index idx_node_name
CREATE INDEX idx_node_name ON node(rev_id, name COLLATE NOCASE);

-- index idx_node_path
CREATE INDEX idx_node_path ON node(rev_id, path);

-- index idx_text_owner
CREATE INDEX idx_text_owner ON text_chunk(rev_id, owner_node_id);

-- index idx_unresolved_call_name
CREATE INDEX idx_unresolved_call_name ON unresolved_call(rev_id, name);

-- table invalidated
CREATE TABLE invalidated (
  rev_id TEXT NOT NULL, path TEXT, node_id TEXT, reason TEXT NOT NULL, ts TEXT NOT NULL
);

-- table node
CREATE TABLE node (
  rev_id TEXT NOT NULL, node_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT, fqn TEXT,
  path TEXT, start_line INTEGER, end_line INTEGER,
  props TEXT,
  layer TEXT NOT NULL,              -- 'structural' | 'text'
  PRIMARY KEY (rev_id, node_id)
);

-- table node_rank
CREATE TABLE node_rank (
  rev_id TEXT NOT NULL, node_id TEXT NOT NULL, shell INTEGER NOT NULL,
  PRIMARY KEY (rev_id, node_id)
);

-- table rev
CREATE TABLE rev (
  rev_id TEXT PRIMARY KEY,          -- 'rev-0001'
  created_at TEXT NOT NULL,
  corpus_hash TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  extractor_versions TEXT NOT NULL, -- JSON
  state TEXT NOT NULL               -- 'building' | 'ready' | 'failed'
);

-- index sqlite_autoindex__migrations_1 (automatic)

-- index sqlite_autoindex_db_table_1 (automatic)

-- index sqlite_autoindex_edge_1 (automatic)

-- index sqlite_autoindex_file_1 (automatic)

-- index sqlite_autoindex_file_blob_1 (automatic)

-- index sqlite_autoindex_file_facts_1 (automatic)

-- index sqlite_autoindex_flow_unit_1 (automatic)

-- index sqlite_autoindex_node_1 (automatic)

-- index sqlite_autoindex_node_rank_1 (automatic)

-- index sqlite_autoindex_rev_1 (automatic)

-- index sqlite_autoindex_text_chunk_1 (automatic)

-- table text_chunk
CREATE TABLE text_chunk (
  rev_id TEXT NOT NULL, chunk_id TEXT NOT NULL,
  owner_node_id TEXT, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER,
  text_kind TEXT NOT NULL,          -- 'comment' | 'docblock' | 'md' | 'commit'
  raw TEXT NOT NULL,
  PRIMARY KEY (rev_id, chunk_id)
);

-- table unresolved_call
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

-- table web_route
CREATE TABLE web_route (
  rev_id TEXT NOT NULL, node_id TEXT NOT NULL, route TEXT NOT NULL,
  method TEXT, evidence_path TEXT, evidence_line INTEGER
);
