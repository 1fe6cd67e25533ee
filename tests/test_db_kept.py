"""Database.scalar_kept: a read-only connection remembers a count until another connection
commits to the file (PRAGMA data_version), then reads it again; a writing connection always
reads. Two real connections on one SQLite file."""

from __future__ import annotations

from pathlib import Path

from ragraf.store.lexvec import LexStore

COUNT = "SELECT count(*) FROM chunk_map WHERE rev_from <= ?1 AND rev_to > ?1"


def _add(lex: LexStore, chunk_id: str) -> None:
    with lex.db.write():
        lex.db.execute(
            "INSERT INTO chunk_map(rev_from, chunk_id, source_kind, path) VALUES (1, ?, 'file', 'a')",
            (chunk_id,),
        )


def test_a_reader_keeps_a_count_until_another_connection_commits(tmp_path: Path) -> None:
    path = tmp_path / "lexvec.sqlite"
    with LexStore(path) as writer:
        _add(writer, "c1")
        with LexStore(path, readonly=True) as reader:
            assert reader.chunk_count("rev-0001") == 1
            assert reader.db.scalar_kept(COUNT, (1,)) == 1
            _add(writer, "c2")  # another connection commits: the kept count is read again
            assert reader.chunk_count("rev-0001") == 2
            assert reader.chunk_count("rev-0000") == 0  # another revision, its own count
            # the writer sees its own commits at once (data_version does not move for them)
            _add(writer, "c3")
            assert writer.chunk_count("rev-0001") == 3
            assert reader.chunk_count("rev-0001") == 3
