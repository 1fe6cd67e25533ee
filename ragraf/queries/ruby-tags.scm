; Ruby tags for RAGRAF (tree-sitter-ruby from tree-sitter-language-pack), read by
; ragraf/lang/tags.py: @definition.* / @name.definition.* declarations, @reference.* /
; @name.reference.* uses by name, @reference.import with @name.reference.import.<how>.

(class name: [(constant) (scope_resolution)] @name.definition.class) @definition.class
(singleton_class value: (_) @name.scope) @scope
(module name: [(constant) (scope_resolution)] @name.definition.module) @definition.module
(method name: (_) @name.definition.function) @definition.function
(singleton_method name: (_) @name.definition.method) @definition.method

; Foo.new / Foo::Bar.new instantiate; any other call is a call by its method name
(call receiver: [(constant) (scope_resolution)] @name.reference.new
  method: (identifier) @_new (#eq? @_new "new")) @reference.new
; (a call that is also an import or an instantiation is that only: ragraf/lang/tags.py)
(call method: (identifier) @name.reference.call) @reference.call
; a bare name as a statement calls the method (a local variable there would do nothing)
(body_statement (identifier) @name.reference.call @reference.call)
(program (identifier) @name.reference.call @reference.call)

(call method: (identifier) @_req
  arguments: (argument_list . (string (string_content) @name.reference.import.path))
  (#eq? @_req "require_relative")) @reference.import

(comment) @text.comment
