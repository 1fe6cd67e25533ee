"""SQL: the database schema (migrations, information_schema) and SQL found in
code strings. Pure analysis; the live server is reached through
``ragraf.store.mysql_live``.
"""
