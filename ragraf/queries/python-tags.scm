; Python tags for RAGRAF (tree-sitter-python from tree-sitter-language-pack).
; Capture names follow the tags convention (as Aider's tags queries): @definition.* /
; @name.definition.* for declarations and @reference.* / @name.reference.* for uses. The
; extractor (ragraf/lang/python/walk.py) dispatches on the capture name of the whole node;
; the @name.* captures mark where a name sits (evidence line).

(class_definition name: (identifier) @name.definition.class) @definition.class
(function_definition name: (identifier) @name.definition.function) @definition.function

(import_statement) @reference.import
(import_from_statement) @reference.import

(call function: (_) @name.reference.call) @reference.call
(decorator) @reference.decorator
(assignment) @reference.assignment

(comment) @text.comment

; SQL candidates: strings whose text starts with a statement keyword, any case
; (ragraf.sql.sqltext decides; the predicate keeps the other strings out of Python). The
; extractor takes the outermost implicit concatenation and analyses it once.
((string) @sql.string
  (#match? @sql.string "^[rRbBuUfF]{0,2}(\"\"\"|'''|\"|')[\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe)\\b"))
