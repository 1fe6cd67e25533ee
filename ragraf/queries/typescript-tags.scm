; TypeScript tags for RAGRAF (tree-sitter-typescript from tree-sitter-language-pack).
; Capture names follow the tags convention (@definition.* / @reference.*); the extractor
; (ragraf/lang/js/walk.py) dispatches on the capture of the whole node and decides itself
; whether a function expression is a named declaration (by what it is assigned to).
; The patterns of javascript-tags.scm (less JSX and `field_definition`) plus TypeScript's own.

(class_declaration) @definition.class
(class) @definition.class

(function_declaration) @definition.function
(generator_function_declaration) @definition.function
(function_expression) @definition.function
(generator_function) @definition.function
(arrow_function) @definition.function
(method_definition) @definition.function


(import_statement) @reference.import
(export_statement) @reference.export
(variable_declarator) @reference.assignment
(assignment_expression) @reference.assignment

(call_expression) @reference.call
(new_expression) @reference.new
(return_statement) @reference.return

(comment) @text.comment

; SQL candidates: strings whose text starts with a statement keyword, any case
; (ragraf.sql.sqltext decides).
((string) @sql.string
  (#match? @sql.string "^(\"|')[\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe)\\b"))
((template_string) @sql.string
  (#match? @sql.string "^`[\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe)\\b"))

; TypeScript's own declarations
(abstract_class_declaration) @definition.class
(interface_declaration) @definition.interface
(enum_declaration) @definition.enum
(internal_module) @definition.namespace
(method_signature) @definition.function
(abstract_method_signature) @definition.function
(function_signature) @definition.function
(construct_signature) @definition.function
(public_field_definition) @reference.field
