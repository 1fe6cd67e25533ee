; PHP tags for RAGRAF (tree-sitter-php from tree-sitter-language-pack).
; Capture names follow the tags convention: @definition.* / @name.definition.*
; for declarations and @reference.* / @name.reference.* for uses. The
; extractor (ragraf/lang/php/walk.py) dispatches on the capture name of the
; whole node; the @name.* captures mark where a name sits (evidence line).

(namespace_definition) @definition.namespace
(namespace_use_declaration) @reference.import

(class_declaration name: (name) @name.definition.class) @definition.class
(interface_declaration name: (name) @name.definition.interface) @definition.interface
(trait_declaration name: (name) @name.definition.trait) @definition.trait
(enum_declaration name: (name) @name.definition.enum) @definition.enum
(function_definition name: (name) @name.definition.function) @definition.function
(method_declaration name: (name) @name.definition.method) @definition.method
(property_declaration) @definition.property
(const_declaration) @definition.constant
(enum_case name: (name) @name.definition.constant) @definition.enum_case
(use_declaration) @reference.trait_use

(anonymous_class) @definition.anonymous_class
(anonymous_function) @definition.closure
(arrow_function) @definition.closure

(function_call_expression function: (_) @name.reference.call) @reference.call
(member_call_expression name: (_) @name.reference.method_call) @reference.method_call
(nullsafe_member_call_expression name: (_) @name.reference.method_call) @reference.method_call
(scoped_call_expression name: (_) @name.reference.static_call) @reference.static_call
(object_creation_expression) @reference.new
(class_constant_access_expression) @reference.class_constant
(array_creation_expression) @reference.array

(include_expression) @reference.include
(include_once_expression) @reference.include
(require_expression) @reference.include
(require_once_expression) @reference.include

(global_declaration) @reference.global
(assignment_expression) @reference.assignment
(augmented_assignment_expression operator: "??=") @reference.assignment
(return_statement) @reference.return
(foreach_statement) @reference.foreach
(binary_expression operator: "instanceof") @reference.instanceof
(catch_clause) @reference.catch
(subscript_expression
  . (variable_name (name) @name.reference.superglobal)
  (#match? @name.reference.superglobal "^_(GET|POST|REQUEST|COOKIE|FILES)$")) @reference.superglobal

(comment) @text.comment

; SQL candidates (issue 6): string literals whose text starts with a statement
; keyword, any case (ragraf.sql.sqltext decides; the predicate only keeps the
; other ~98% of strings out of Python). The extractor walks up from a capture
; to the outermost concatenation and analyses that once.
; Each kind of literal has ONE pattern whose regex is the alternation of every test (the
; predicate runs once per string instead of once per test: a quarter of the query's time).
; The alternatives of the quoted strings, in order:
; - a statement keyword (issue 6);
; - SQL fragments (issue 12): pieces that continue a statement (FROM / JOIN / WHERE / AND
;   ... clauses) and are concatenated, appended or pushed onto arrays;
;   ragraf.lang.php.assemble puts them into the statement they end up in, else they are
;   analysed as fragments;
; - fragments that start with a name (issue 12): a select list of qualified columns
;   (`"orders.title AS t,"`) or a table list with aliases (`"orders o, order_lines l,"`).
;   They name tables only when the schema or the code's CREATE TABLEs know the names (the
;   linker).
((string) @sql.string
  (#match? @sql.string "^[bB]?'([\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe|from|join|left|right|inner|cross|natural|straight_join|where|and|or|order|group|having|union|not|exists|in)\\b|\\s*[A-Za-z_][A-Za-z0-9_]*\\.([A-Za-z_][A-Za-z0-9_]*|\\*)\\s*(,|\\s(AS|as)\\s)|\\s*[a-z_][a-z0-9_]*\\s+[a-z][a-z0-9_]{0,3}\\s*,)"))
((encapsed_string) @sql.string
  (#match? @sql.string "^[bB]?\"([\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe|from|join|left|right|inner|cross|natural|straight_join|where|and|or|order|group|having|union|not|exists|in)\\b|\\s*[A-Za-z_][A-Za-z0-9_]*\\.([A-Za-z_][A-Za-z0-9_]*|\\*)\\s*(,|\\s(AS|as)\\s)|\\s*[a-z_][a-z0-9_]*\\s+[a-z][a-z0-9_]{0,3}\\s*,)"))
((heredoc) @sql.string
  (#match? @sql.string "^<<<[ \\t]*\"?[A-Za-z_][A-Za-z0-9_]*\"?\\r?\\n[\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe)\\b"))
((nowdoc) @sql.string
  (#match? @sql.string "^<<<[ \\t]*'[A-Za-z_][A-Za-z0-9_]*'\\r?\\n[\\s(]*(?i:select|with|insert|replace|update|delete|create|alter|drop|truncate|show|describe)\\b"))

; Query-builder calls naming a table (issue 12): `$wpdb->update($wpdb->options, ...)`,
; `DB::table('users')->where(...)`, `$qb->from('users', 'u')`; Laravel's schema builder
; (`Schema::create('users', fn)`, `Schema::table`, `drop`, `dropIfExists`, `rename`);
; ragraf.lang.php.strings decides from the receiver and the first argument.
((member_call_expression name: (name) @name.sql.call) @sql.call
  (#match? @name.sql.call "^(?i:insert|update|delete|replace|table|from|into|join|leftjoin|rightjoin|innerjoin|straightjoin|select|selectfield|selectfieldvalues|selectrow|selectrowcount|estimaterowcount|selectsqltext|upsert|insertselect|insertinto|replaceinto|deletefrom|deletejoin)$"))
((scoped_call_expression name: (name) @name.sql.call) @sql.call
  (#match? @name.sql.call "^(?i:insert|update|delete|table|create|drop|dropifexists|rename)$"))

; Table prefixes (issue 12): a literal assigned to `$table_prefix`, `DB_PREFIX`, `'dbprefix'`...
((assignment_expression left: (_) @name.sql.prefix right: (string)) @sql.prefix
  (#match? @name.sql.prefix "(?i:prefix)$"))
((function_call_expression
   function: (name) @name.sql.define
   arguments: (arguments . (argument (string) @name.sql.prefix_const))) @sql.prefix
  (#eq? @name.sql.define "define")
  (#match? @name.sql.prefix_const "(?i:prefix)['\"]$"))
((array_element_initializer . (string) @name.sql.prefix_key . (string)) @sql.prefix
  (#match? @name.sql.prefix_key "^['\"](?i:[a-z_]*prefix)['\"]$"))

; A callable named under a key that says so: 'render_callback' => 'render_block_x',
; 'callback' => 'C::m' (WordPress's blocks, settings, REST and customizer arrays)
((array_element_initializer . (string) @name.callback_key . (string)) @reference.keyed_callback
  (#match? @name.callback_key "^['\"](?i:[a-z_]*callback)['\"]$"))

; A string that may name a function called later by its name: an array's value, the right
; side of an assignment, a return value ('apply' => 'wp_apply_border_support',
; $wgHooks['X'][] = 'efHandler', return '_default_wp_die_handler'). Only a name the corpus
; declares is linked (derived); call arguments are the callbacks above. A plain word
; ('post', 'none') is left out: a name with '_', '\', '::' or a capital inside only.
((array_element_initializer (string) @reference.name_string .)
  (#match? @reference.name_string "^['\"](?=[^'\"]*(?:[A-Za-z0-9]_|\\\\|::|[a-z][A-Z]))[A-Za-z_\\\\][A-Za-z0-9_\\\\]*(::[A-Za-z_][A-Za-z0-9_]*)?['\"]$"))
((assignment_expression right: (string) @reference.name_string)
  (#match? @reference.name_string "^['\"](?=[^'\"]*(?:[A-Za-z0-9]_|\\\\|::|[a-z][A-Z]))[A-Za-z_\\\\][A-Za-z0-9_\\\\]*(::[A-Za-z_][A-Za-z0-9_]*)?['\"]$"))
((return_statement (string) @reference.name_string)
  (#match? @reference.name_string "^['\"](?=[^'\"]*(?:[A-Za-z0-9]_|\\\\|::|[a-z][A-Z]))[A-Za-z_\\\\][A-Za-z0-9_\\\\]*(::[A-Za-z_][A-Za-z0-9_]*)?['\"]$"))
