; Java tags for RAGRAF (tree-sitter-java from tree-sitter-language-pack).
; Capture names follow the tags convention (as Aider's tags queries): @definition.* /
; @name.definition.* for declarations and @reference.* / @name.reference.* for uses. The
; extractor (ragraf/lang/java/walk.py) dispatches on the capture name of the whole node.

(package_declaration) @definition.package
(class_declaration name: (identifier) @name.definition.class) @definition.class
(interface_declaration name: (identifier) @name.definition.interface) @definition.class
(enum_declaration name: (identifier) @name.definition.enum) @definition.class
(record_declaration name: (identifier) @name.definition.class) @definition.class
(annotation_type_declaration name: (identifier) @name.definition.interface) @definition.class
(object_creation_expression (class_body) @definition.anonymous)
(method_declaration name: (identifier) @name.definition.method) @definition.method
(constructor_declaration name: (identifier) @name.definition.method) @definition.method
(compact_constructor_declaration name: (identifier) @name.definition.method) @definition.method
(annotation_type_element_declaration name: (identifier) @name.definition.method) @definition.method
(lambda_expression) @definition.lambda

(import_declaration) @reference.import
(field_declaration) @reference.field
(constant_declaration) @reference.field
(local_variable_declaration) @reference.local
(enhanced_for_statement) @reference.local
(catch_formal_parameter) @reference.local
(method_invocation name: (identifier) @name.reference.call) @reference.call
(object_creation_expression) @reference.new
(explicit_constructor_invocation) @reference.constructor

(line_comment) @text.comment
(block_comment) @text.comment
