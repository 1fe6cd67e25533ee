"""Python's builtin names (CPython 3.11 dir(builtins), public ones, plus the dunder
module attributes every module has): a call of one of these names, when no binding of
the file shadows it, calls outside the corpus (external)."""

from __future__ import annotations

BUILTINS = frozenset(
    """
    ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup
    BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
    ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
    DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception
    ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError
    FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError
    IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError
    MemoryError ModuleNotFoundError NameError None NotADirectoryError NotImplemented
    NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError
    ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError
    RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning
    SystemError SystemExit TabError TimeoutError True TypeError UnboundLocalError
    UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError
    UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext
    any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile
    complex copyright credits delattr dict dir divmod enumerate eval exec exit filter
    float format frozenset getattr globals hasattr hash help hex id input int isinstance
    issubclass iter len license list locals map max memoryview min next object oct open
    ord pow print property quit range repr reversed round set setattr slice sorted
    staticmethod str sum super tuple type vars zip
    __import__ __build_class__ __name__ __file__ __doc__ __package__ __spec__
    """.split()
)

#: the module the extractor names builtins under (builtins.len): no corpus file is it
BUILTINS_MODULE = "builtins"

#: builtin value types of literals: a method called on a literal is external
LITERAL_TYPES = {
    "string": "str",
    "concatenated_string": "str",
    "integer": "int",
    "float": "float",
    "true": "bool",
    "false": "bool",
    "list": "list",
    "list_comprehension": "list",
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "set": "set",
    "set_comprehension": "set",
    "tuple": "tuple",
}
