; Swift tags for RAGRAF (tree-sitter-swift from tree-sitter-language-pack), read by
; ragraf/lang/tags.py (see its docstring for the capture names).

(class_declaration "class" name: (type_identifier) @name.definition.class) @definition.class
(class_declaration "struct" name: (type_identifier) @name.definition.struct) @definition.struct
(class_declaration "enum" name: (type_identifier) @name.definition.enum) @definition.enum
(class_declaration "actor" name: (type_identifier) @name.definition.class) @definition.class
(class_declaration "extension" name: (user_type (type_identifier) @name.scope)) @scope
(protocol_declaration name: (type_identifier) @name.definition.protocol) @definition.protocol
(function_declaration name: (simple_identifier) @name.definition.function) @definition.function
(protocol_function_declaration name: (simple_identifier) @name.definition.method) @definition.method
(init_declaration "init" @name.definition.constructor) @definition.constructor

(call_expression . [
  (simple_identifier) @name.reference.call
  (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name.reference.call))
]) @reference.call

(comment) @text.comment
(multiline_comment) @text.comment
