; Scala tags for RAGRAF (tree-sitter-scala from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names).

(package_clause name: (package_identifier) @name.package) @package
(class_definition name: (identifier) @name.definition.class) @definition.class
(object_definition name: (identifier) @name.definition.object) @definition.object
(trait_definition name: (identifier) @name.definition.trait) @definition.trait
(enum_definition name: (identifier) @name.definition.enum) @definition.enum
(function_definition name: (identifier) @name.definition.function) @definition.function
(function_declaration name: (identifier) @name.definition.method) @definition.method

(call_expression function: [
  (identifier) @name.reference.call
  (field_expression field: (identifier) @name.reference.call)
  (generic_function function: (identifier) @name.reference.call)
]) @reference.call
(instance_expression [
  (type_identifier) @name.reference.new
  (stable_type_identifier (type_identifier) @name.reference.new)
  (generic_type type: (type_identifier) @name.reference.new)
]) @reference.new

(comment) @text.comment
(block_comment) @text.comment

; import a.b.C (the text after ``import`` is the dotted name; selectors are not followed)
((import_declaration) @name.reference.import.fqn @reference.import
  (#match? @name.reference.import.fqn "^import\\s+[\\w.]+$"))
