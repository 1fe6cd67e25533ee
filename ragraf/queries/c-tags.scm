; C tags for RAGRAF (tree-sitter-c from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names). A struct, union or enum
; is a definition with its body only (``struct point *p`` names one).

(struct_specifier name: (type_identifier) @name.definition.struct body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name.definition.struct body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name.definition.enum body: (_)) @definition.enum
(function_definition declarator: [
  (function_declarator declarator: (identifier) @name.definition.function)
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name.definition.function)))
]) @definition.function

(call_expression function: [
  (identifier) @name.reference.call
  (field_expression field: (field_identifier) @name.reference.call)
]) @reference.call

(preproc_include path: (string_literal (string_content) @name.reference.import.path)) @reference.import

(comment) @text.comment
