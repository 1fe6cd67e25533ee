-- Rows shared across revisions (issue 15; architecture §4.1 "Revision ranges").
-- Every row of a revision table is visible in the revisions rev_from <= n < rev_to
-- (n: the number of rev-NNNN); rev_to = 1000000000 while the row is still in the newest
-- revision. A new revision inserts rows for what changed and closes the range of what
-- disappeared; pruning deletes rows whose range ended at or before the oldest retained
-- revision. A sealed revision's view never changes.
-- This migration converts the full copies of earlier versions: the rows of each revision
-- are visible from it until the next revision present (the newest: open).
CREATE TEMP TABLE _rev_next AS
  SELECT r.rev_id AS rev_id, CAST(substr(r.rev_id, 5) AS INTEGER) AS n,
         coalesce((SELECT min(CAST(substr(q.rev_id, 5) AS INTEGER)) FROM rev q
                   WHERE CAST(substr(q.rev_id, 5) AS INTEGER) > CAST(substr(r.rev_id, 5) AS INTEGER)),
                  1000000000) AS next
  FROM rev r;
CREATE TABLE _new_file (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  path TEXT NOT NULL, lang TEXT, lines INTEGER, sha256 TEXT NOT NULL, parse_status TEXT NOT NULL, parse_note TEXT, size INTEGER, mtime_ns INTEGER
);
INSERT INTO _new_file(rev_from, rev_to, path, lang, lines, sha256, parse_status, parse_note, size, mtime_ns)
  SELECT x.n, x.next, o.path, o.lang, o.lines, o.sha256, o.parse_status, o.parse_note, o.size, o.mtime_ns
  FROM file o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE file;
ALTER TABLE _new_file RENAME TO file;
CREATE TABLE _new_node (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  node_id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT, fqn TEXT, path TEXT, start_line INTEGER, end_line INTEGER, props TEXT, layer TEXT NOT NULL
);
INSERT INTO _new_node(rev_from, rev_to, node_id, kind, name, fqn, path, start_line, end_line, props, layer)
  SELECT x.n, x.next, o.node_id, o.kind, o.name, o.fqn, o.path, o.start_line, o.end_line, o.props, o.layer
  FROM node o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE node;
ALTER TABLE _new_node RENAME TO node;
CREATE TABLE _new_edge (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, provenance TEXT NOT NULL, evidence_path TEXT, evidence_line INTEGER, confidence REAL NOT NULL, sources TEXT NOT NULL, edge_uid TEXT NOT NULL, props TEXT
);
INSERT INTO _new_edge(rev_from, rev_to, src, dst, kind, provenance, evidence_path, evidence_line, confidence, sources, edge_uid, props)
  SELECT x.n, x.next, o.src, o.dst, o.kind, o.provenance, o.evidence_path, o.evidence_line, o.confidence, o.sources, o.edge_uid, o.props
  FROM edge o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE edge;
ALTER TABLE _new_edge RENAME TO edge;
CREATE TABLE _new_text_chunk (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  chunk_id TEXT NOT NULL, owner_node_id TEXT, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER, text_kind TEXT NOT NULL, raw TEXT NOT NULL
);
INSERT INTO _new_text_chunk(rev_from, rev_to, chunk_id, owner_node_id, path, start_line, end_line, text_kind, raw)
  SELECT x.n, x.next, o.chunk_id, o.owner_node_id, o.path, o.start_line, o.end_line, o.text_kind, o.raw
  FROM text_chunk o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE text_chunk;
ALTER TABLE _new_text_chunk RENAME TO text_chunk;
CREATE TABLE _new_cfg_edge (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  src TEXT NOT NULL, dst TEXT NOT NULL, func_node_id TEXT NOT NULL, edge_order INTEGER
);
INSERT INTO _new_cfg_edge(rev_from, rev_to, src, dst, func_node_id, edge_order)
  SELECT x.n, x.next, o.src, o.dst, o.func_node_id, o.edge_order
  FROM cfg_edge o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE cfg_edge;
ALTER TABLE _new_cfg_edge RENAME TO cfg_edge;
CREATE TABLE _new_dfg_edge (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  src TEXT NOT NULL, dst TEXT NOT NULL, var_name TEXT, evidence_line INTEGER
);
INSERT INTO _new_dfg_edge(rev_from, rev_to, src, dst, var_name, evidence_line)
  SELECT x.n, x.next, o.src, o.dst, o.var_name, o.evidence_line
  FROM dfg_edge o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE dfg_edge;
ALTER TABLE _new_dfg_edge RENAME TO dfg_edge;
CREATE TABLE _new_db_table (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  table_id TEXT NOT NULL, table_name TEXT NOT NULL, engine TEXT, row_estimate INTEGER, source TEXT NOT NULL
);
INSERT INTO _new_db_table(rev_from, rev_to, table_id, table_name, engine, row_estimate, source)
  SELECT x.n, x.next, o.table_id, o.table_name, o.engine, o.row_estimate, o.source
  FROM db_table o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE db_table;
ALTER TABLE _new_db_table RENAME TO db_table;
CREATE TABLE _new_db_column (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  table_id TEXT NOT NULL, ord INTEGER NOT NULL, column_name TEXT NOT NULL, data_type TEXT, is_nullable INTEGER, column_key TEXT
);
INSERT INTO _new_db_column(rev_from, rev_to, table_id, ord, column_name, data_type, is_nullable, column_key)
  SELECT x.n, x.next, o.table_id, row_number() OVER (PARTITION BY o.rev_id, o.table_id ORDER BY o.rowid) - 1,
         o.column_name, o.data_type, o.is_nullable, o.column_key
  FROM db_column o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE db_column;
ALTER TABLE _new_db_column RENAME TO db_column;
CREATE TABLE _new_db_fk (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  from_table TEXT NOT NULL, from_column TEXT NOT NULL, to_table TEXT NOT NULL, to_column TEXT NOT NULL
);
INSERT INTO _new_db_fk(rev_from, rev_to, from_table, from_column, to_table, to_column)
  SELECT x.n, x.next, o.from_table, o.from_column, o.to_table, o.to_column
  FROM db_fk o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE db_fk;
ALTER TABLE _new_db_fk RENAME TO db_fk;
CREATE TABLE _new_web_route (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  node_id TEXT NOT NULL, route TEXT NOT NULL, method TEXT, evidence_path TEXT, evidence_line INTEGER
);
INSERT INTO _new_web_route(rev_from, rev_to, node_id, route, method, evidence_path, evidence_line)
  SELECT x.n, x.next, o.node_id, o.route, o.method, o.evidence_path, o.evidence_line
  FROM web_route o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE web_route;
ALTER TABLE _new_web_route RENAME TO web_route;
CREATE TABLE _new_invalidated (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  path TEXT, node_id TEXT, reason TEXT NOT NULL, ts TEXT NOT NULL
);
INSERT INTO _new_invalidated(rev_from, rev_to, path, node_id, reason, ts)
  SELECT x.n, x.next, o.path, o.node_id, o.reason, o.ts
  FROM invalidated o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE invalidated;
ALTER TABLE _new_invalidated RENAME TO invalidated;
CREATE TABLE _new_coverage (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  metric TEXT NOT NULL, value REAL, note TEXT
);
INSERT INTO _new_coverage(rev_from, rev_to, metric, value, note)
  SELECT x.n, x.next, o.metric, o.value, o.note
  FROM coverage o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE coverage;
ALTER TABLE _new_coverage RENAME TO coverage;
CREATE TABLE _new_node_rank (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  node_id TEXT NOT NULL, shell INTEGER NOT NULL
);
INSERT INTO _new_node_rank(rev_from, rev_to, node_id, shell)
  SELECT x.n, x.next, o.node_id, o.shell
  FROM node_rank o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE node_rank;
ALTER TABLE _new_node_rank RENAME TO node_rank;
CREATE TABLE _new_unresolved_call (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  name TEXT NOT NULL, kind TEXT NOT NULL, src TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL, reason TEXT NOT NULL, detail TEXT
);
INSERT INTO _new_unresolved_call(rev_from, rev_to, name, kind, src, path, line, reason, detail)
  SELECT x.n, x.next, o.name, o.kind, o.src, o.path, o.line, o.reason, o.detail
  FROM unresolved_call o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE unresolved_call;
ALTER TABLE _new_unresolved_call RENAME TO unresolved_call;
CREATE TABLE _new_flow_unit (
  rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL DEFAULT 1000000000,
  unit_id TEXT NOT NULL, func_node_id TEXT NOT NULL, path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL, sources TEXT
);
INSERT INTO _new_flow_unit(rev_from, rev_to, unit_id, func_node_id, path, start_line, end_line, kind, data, sources)
  SELECT x.n, x.next, o.unit_id, o.func_node_id, o.path, o.start_line, o.end_line, o.kind, o.data, o.sources
  FROM flow_unit o JOIN _rev_next x ON x.rev_id = o.rev_id ORDER BY o.rowid;
DROP TABLE flow_unit;
ALTER TABLE _new_flow_unit RENAME TO flow_unit;
DROP TABLE _rev_next;
CREATE INDEX idx_file_path ON file(path);
CREATE INDEX idx_file_sha ON file(sha256);
CREATE INDEX idx_node_id ON node(node_id);
CREATE INDEX idx_node_fqn ON node(fqn);
CREATE INDEX idx_node_fqn_nocase ON node(fqn COLLATE NOCASE);
CREATE INDEX idx_node_name ON node(name COLLATE NOCASE);
CREATE INDEX idx_node_path ON node(path);
CREATE INDEX idx_edge_src ON edge(src, kind);
CREATE INDEX idx_edge_dst ON edge(dst, kind);
CREATE INDEX idx_edge_evidence ON edge(evidence_path);
CREATE INDEX idx_edge_uid ON edge(edge_uid);
CREATE INDEX idx_text_owner ON text_chunk(owner_node_id);
CREATE INDEX idx_db_table_id ON db_table(table_id);
CREATE INDEX idx_db_column_table ON db_column(table_id, ord);
CREATE INDEX idx_node_rank_node ON node_rank(node_id);
CREATE INDEX idx_unresolved_call_name ON unresolved_call(name);
CREATE INDEX idx_flow_unit_id ON flow_unit(unit_id);
CREATE INDEX idx_flow_unit_path ON flow_unit(path, start_line);
CREATE INDEX idx_flow_unit_func ON flow_unit(func_node_id);
