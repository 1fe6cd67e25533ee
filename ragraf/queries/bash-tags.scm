; Bash tags for RAGRAF (tree-sitter-bash from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names). A command is a call by
; its name; ``source f`` / ``. f`` imports a file.

(function_definition name: (word) @name.definition.function) @definition.function

(command name: (command_name (word) @name.reference.call)) @reference.call

(command name: (command_name (word) @_src)
  argument: [(word) (string (string_content)) (raw_string)] @name.reference.import.path
  (#any-of? @_src "source" ".")) @reference.import

(comment) @text.comment
