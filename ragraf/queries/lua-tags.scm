; Lua tags for RAGRAF (tree-sitter-lua from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names). ``function T.f`` and
; ``function T:f`` are methods of the table ``T``.

(function_declaration name: [
  (identifier) (dot_index_expression) (method_index_expression)
] @name.definition.function) @definition.function

(function_call name: [
  (identifier) @name.reference.call
  (dot_index_expression field: (identifier) @name.reference.call)
  (method_index_expression method: (identifier) @name.reference.call)
]) @reference.call

(function_call name: (identifier) @_req
  arguments: (arguments . (string content: (string_content) @name.reference.import.lua))
  (#eq? @_req "require")) @reference.import

(comment) @text.comment

; ``M.f = function(...) end`` / ``local f = function(...) end``
(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression) (method_index_expression)] @name.definition.function)
  (expression_list . value: (function_definition))) @definition.function
; ``{ __index = function(...) end }``: a table's field holding a function
(field name: (identifier) @name.definition.function value: (function_definition)) @definition.function
