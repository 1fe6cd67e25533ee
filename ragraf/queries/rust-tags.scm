; Rust tags for RAGRAF (tree-sitter-rust from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names).

(struct_item name: (type_identifier) @name.definition.struct) @definition.struct
(union_item name: (type_identifier) @name.definition.struct) @definition.struct
(enum_item name: (type_identifier) @name.definition.enum) @definition.enum
(trait_item name: (type_identifier) @name.definition.trait) @definition.trait
(mod_item name: (identifier) @name.definition.module body: (_)) @definition.module
(impl_item type: [
  (type_identifier) @name.scope
  (generic_type type: (type_identifier) @name.scope)
  (scoped_type_identifier name: (type_identifier) @name.scope)
]) @scope
(function_item name: (identifier) @name.definition.function) @definition.function
(macro_definition name: (identifier) @name.definition.function) @definition.function

(call_expression function: [
  (identifier) @name.reference.call
  (scoped_identifier name: (identifier) @name.reference.call)
  (field_expression field: (field_identifier) @name.reference.call)
  (generic_function function: (identifier) @name.reference.call)
  (generic_function function: (scoped_identifier name: (identifier) @name.reference.call))
  (generic_function function: (field_expression field: (field_identifier) @name.reference.call))
]) @reference.call
(macro_invocation macro: (identifier) @name.reference.call) @reference.call
(struct_expression name: [
  (type_identifier) @name.reference.new
  (scoped_type_identifier name: (type_identifier) @name.reference.new)
]) @reference.new

(mod_item name: (identifier) @name.reference.import.rustmod !body) @reference.import

(line_comment) @text.comment
(block_comment) @text.comment

; a trait's required methods and ``mod foo;`` (its body is another file) declare names too
(function_signature_item name: (identifier) @name.definition.method) @definition.method
(mod_item name: (identifier) @name.definition.module !body) @definition.module
