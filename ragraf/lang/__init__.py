"""Languages: one module per language turns a file's text into FileFacts
(nodes with final ids, local edges, references left for the resolver, text
and chunks). Extractors depend on the file alone (path, text, versions).
"""
