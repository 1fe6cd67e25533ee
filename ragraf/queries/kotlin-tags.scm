; Kotlin tags for RAGRAF (tree-sitter-kotlin from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names).

(package_header (identifier) @name.package) @package
(class_declaration "interface" (type_identifier) @name.definition.interface) @definition.interface
(class_declaration "enum" (type_identifier) @name.definition.enum) @definition.enum
(class_declaration "class" (type_identifier) @name.definition.class) @definition.class
(object_declaration (type_identifier) @name.definition.object) @definition.object
(function_declaration (simple_identifier) @name.definition.function) @definition.function

(call_expression . [
  (simple_identifier) @name.reference.call
  (navigation_expression (navigation_suffix (simple_identifier) @name.reference.call) .)
]) @reference.call

(import_header (identifier) @name.reference.import.fqn) @reference.import

(line_comment) @text.comment
(multiline_comment) @text.comment
