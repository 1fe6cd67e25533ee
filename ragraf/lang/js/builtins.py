"""The global names of JavaScript runtimes (ECMAScript globals, the common browser and
Node.js ones, TypeScript's predefined and utility types): a call of one of these names, or
of a member of one (``console.log``, ``Object.keys``), when no binding of the file shadows
it, calls outside the corpus (external)."""

from __future__ import annotations

#: the qualifier the extractor names globals under (``globalThis.Map``): no corpus file is it
GLOBAL = "globalThis"

GLOBALS = frozenset(
    """
    globalThis Infinity NaN undefined eval isFinite isNaN parseFloat parseInt decodeURI
    decodeURIComponent encodeURI encodeURIComponent escape unescape Object Function Boolean
    Symbol Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError
    URIError Number BigInt Math Date String RegExp Array Int8Array Uint8Array
    Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array
    Float64Array BigInt64Array BigUint64Array Map Set WeakMap WeakSet WeakRef
    FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView Atomics JSON Promise
    Reflect Proxy Intl
    console setTimeout clearTimeout setInterval clearInterval setImmediate clearImmediate
    queueMicrotask structuredClone fetch URL URLSearchParams TextEncoder TextDecoder
    AbortController AbortSignal Blob FormData Headers Request Response Event EventTarget
    window document navigator location history localStorage sessionStorage alert confirm
    prompt requestAnimationFrame cancelAnimationFrame atob btoa crypto performance
    process Buffer require module exports __dirname __filename global
    string number boolean bigint symbol object any unknown never void null
    Partial Required Readonly Record Pick Omit Exclude Extract NonNullable Parameters
    ReturnType InstanceType Awaited Uppercase Lowercase Capitalize Uncapitalize
    """.split()
)

#: builtin value types of literals: a method called on a literal is external
LITERAL_TYPES = {
    "string": "String",
    "template_string": "String",
    "number": "Number",
    "true": "Boolean",
    "false": "Boolean",
    "array": "Array",
    "object": "Object",
    "regex": "RegExp",
    "arrow_function": "Function",
    "function_expression": "Function",
}
