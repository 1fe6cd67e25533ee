"""The `ragraf` executable: its commands (``app``), the MCP server it serves
(``mcp_server``), text renderings for humans (``render``) and the references
generated from the code (``docgen``).

Invariant: this layer parses, calls the facade or one library function, and
renders. No SQL, no business rules.
"""
