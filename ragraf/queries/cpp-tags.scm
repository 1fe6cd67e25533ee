; C++ tags for RAGRAF (tree-sitter-cpp from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names). A class-like is a
; definition with its body only; ``A::f() {...}`` outside its class is a method of ``A``.

(namespace_definition name: (_) @name.definition.namespace) @definition.namespace
(class_specifier name: [(type_identifier) (qualified_identifier)] @name.definition.class body: (_)) @definition.class
(struct_specifier name: [(type_identifier) (qualified_identifier)] @name.definition.struct body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name.definition.struct body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name.definition.enum body: (_)) @definition.enum
(function_definition declarator: [
  (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name.definition.function)
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name.definition.function))
  (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name.definition.function))
]) @definition.function

(call_expression function: [
  (identifier) @name.reference.call
  (qualified_identifier name: (identifier) @name.reference.call)
  (field_expression field: (field_identifier) @name.reference.call)
  (template_function name: (identifier) @name.reference.call)
]) @reference.call
(new_expression type: [
  (type_identifier) @name.reference.new
  (qualified_identifier name: (type_identifier) @name.reference.new)
]) @reference.new

(preproc_include path: (string_literal (string_content) @name.reference.import.path)) @reference.import

(comment) @text.comment
