; C# tags for RAGRAF (tree-sitter-c-sharp from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names).

(file_scoped_namespace_declaration name: (_) @name.package) @package
(namespace_declaration name: (_) @name.definition.namespace) @definition.namespace
(class_declaration name: (identifier) @name.definition.class) @definition.class
(struct_declaration name: (identifier) @name.definition.struct) @definition.struct
(record_declaration name: (identifier) @name.definition.record) @definition.record
(interface_declaration name: (identifier) @name.definition.interface) @definition.interface
(enum_declaration name: (identifier) @name.definition.enum) @definition.enum
(method_declaration name: (identifier) @name.definition.method) @definition.method
(constructor_declaration name: (identifier) @name.definition.constructor) @definition.constructor
(local_function_statement name: (identifier) @name.definition.function) @definition.function

(invocation_expression function: [
  (identifier) @name.reference.call
  (member_access_expression name: (identifier) @name.reference.call)
  (generic_name (identifier) @name.reference.call)
  (member_access_expression name: (generic_name (identifier) @name.reference.call))
]) @reference.call
(object_creation_expression type: [
  (identifier) @name.reference.new
  (qualified_name name: (identifier) @name.reference.new)
  (generic_name (identifier) @name.reference.new)
]) @reference.new

(comment) @text.comment
