; Go tags for RAGRAF (tree-sitter-go from tree-sitter-language-pack).
; Capture names follow the tags convention (as Aider's tags queries): @definition.* /
; @name.definition.* for declarations and @reference.* / @name.reference.* for uses. The
; extractor (ragraf/lang/go/walk.py) dispatches on the capture name of the whole node.

(package_clause) @definition.package
(function_declaration name: (identifier) @name.definition.function) @definition.function
(method_declaration name: (field_identifier) @name.definition.method) @definition.method
(type_spec name: (type_identifier) @name.definition.type) @definition.type
(type_alias name: (type_identifier) @name.definition.type) @definition.type
(func_literal) @definition.closure

(import_spec) @reference.import
(call_expression function: (_) @name.reference.call) @reference.call
(composite_literal type: (_) @name.reference.class) @reference.new
(short_var_declaration) @reference.assignment
(var_spec) @reference.assignment
(range_clause) @reference.assignment

(comment) @text.comment
