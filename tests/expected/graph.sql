-- graph.sqlite after its migrations (tests/test_store_schema.py)
-- migrations: 0001_init, 0002_file_text_and_nocase, 0003_unresolved_call, 0004_flow_unit, 0005_rev_ranges, 0006_redacted_blobs, 0007_default_sources

-- table _migrations
CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);

-- table cfg_edge
CREATE TABLE "cfg_edge" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  src TEXT NOT NULL, dst TEXT NOT NULL, func_node_id TEXT NOT NULL, edge_order INTEGER
);

-- table coverage
CREATE TABLE "coverage" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  metric TEXT NOT NULL, value REAL, note TEXT
);

-- table db_column
CREATE TABLE "db_column" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  table_id TEXT NOT NULL, ord INTEGER NOT NULL, column_name TEXT NOT NULL, data_type TEXT, is_nullable INTEGER, column_key TEXT
);

-- table db_fk
CREATE TABLE "db_fk" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  from_table TEXT NOT NULL, from_column TEXT NOT NULL, to_table TEXT NOT NULL, to_column TEXT NOT NULL
);

-- table db_table
CREATE TABLE "db_table" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  table_id TEXT NOT NULL, table_name TEXT NOT NULL, engine TEXT, row_estimate INTEGER, source TEXT NOT NULL
);

-- table dfg_edge
CREATE TABLE "dfg_edge" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  src TEXT NOT NULL, dst TEXT NOT NULL, var_name TEXT, evidence_line INTEGER
);

-- table edge
CREATE TABLE "edge" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, provenance TEXT NOT NULL, evidence_path TEXT, evidence_line INTEGER, confidence REAL NOT NULL, sources TEXT NOT NULL, edge_uid TEXT NOT NULL, props TEXT
);

-- table file
CREATE TABLE "file" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  path TEXT NOT NULL, lang TEXT, lines INTEGER, sha256 TEXT NOT NULL, parse_status TEXT NOT NULL, parse_note TEXT, size INTEGER, mtime_ns INTEGER
);

-- table file_blob
CREATE TABLE file_blob (
  sha256 TEXT PRIMARY KEY,
  data BLOB NOT NULL                -- zlib-compressed UTF-8 text
, redacted INTEGER NOT NULL DEFAULT 0);

-- table file_facts
CREATE TABLE file_facts (
  sha256 TEXT NOT NULL, extractor TEXT NOT NULL, facts BLOB NOT NULL,
  PRIMARY KEY (sha256, extractor)
);

-- table flow_unit
CREATE TABLE "flow_unit" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  unit_id TEXT NOT NULL, func_node_id TEXT NOT NULL, path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL, sources TEXT
);

-- index idx_db_column_table
CREATE INDEX idx_db_column_table ON db_column(table_id, ord);

-- index idx_db_table_id
CREATE INDEX idx_db_table_id ON db_table(table_id);

-- index idx_edge_dst
CREATE INDEX idx_edge_dst ON edge(dst, kind);

-- index idx_edge_evidence
CREATE INDEX idx_edge_evidence ON edge(evidence_path);

-- index idx_edge_src
CREATE INDEX idx_edge_src ON edge(src, kind);

-- index idx_edge_uid
CREATE INDEX idx_edge_uid ON edge(edge_uid);

-- index idx_file_path
CREATE INDEX idx_file_path ON file(path);

-- index idx_file_sha
CREATE INDEX idx_file_sha ON file(sha256);

-- index idx_flow_unit_func
CREATE INDEX idx_flow_unit_func ON flow_unit(func_node_id);

-- index idx_flow_unit_id
CREATE INDEX idx_flow_unit_id ON flow_unit(unit_id);

-- index idx_flow_unit_path
CREATE INDEX idx_flow_unit_path ON flow_unit(path, start_line);

-- index idx_node_fqn
CREATE INDEX idx_node_fqn ON node(fqn);

-- index idx_node_fqn_nocase
CREATE INDEX idx_node_fqn_nocase ON node(fqn COLLATE NOCASE);

-- index idx_node_id
CREATE INDEX idx_node_id ON node(node_id);

-- index idx_node_name
CREATE INDEX idx_node_name ON node(name COLLATE NOCASE);

-- index idx_node_path
CREATE INDEX idx_node_path ON node(path);

-- index idx_node_rank_node
CREATE INDEX idx_node_rank_node ON node_rank(node_id);

-- index idx_text_owner
CREATE INDEX idx_text_owner ON text_chunk(owner_node_id);

-- index idx_unresolved_call_name
CREATE INDEX idx_unresolved_call_name ON unresolved_call(name);

-- table invalidated
CREATE TABLE "invalidated" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  path TEXT, node_id TEXT, reason TEXT NOT NULL, ts TEXT NOT NULL
);

-- table node
CREATE TABLE "node" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  node_id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT, fqn TEXT, path TEXT, start_line INTEGER, end_line INTEGER, props TEXT, layer TEXT NOT NULL
);

-- table node_rank
CREATE TABLE "node_rank" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  node_id TEXT NOT NULL, shell INTEGER NOT NULL
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

-- index sqlite_autoindex_file_blob_1 (automatic)

-- index sqlite_autoindex_file_facts_1 (automatic)

-- index sqlite_autoindex_rev_1 (automatic)

-- table text_chunk
CREATE TABLE "text_chunk" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, owner_node_id TEXT, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER, text_kind TEXT NOT NULL, raw TEXT NOT NULL
);

-- table unresolved_call
CREATE TABLE "unresolved_call" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  name TEXT NOT NULL, kind TEXT NOT NULL, src TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL, reason TEXT NOT NULL, detail TEXT
);

-- table web_route
CREATE TABLE "web_route" (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  node_id TEXT NOT NULL, route TEXT NOT NULL, method TEXT, evidence_path TEXT, evidence_line INTEGER
);
