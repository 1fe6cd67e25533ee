"""Classes and interfaces PHP itself declares (core, SPL, date, PDO, mysqli, intl,
reflection, DOM, ...): a receiver of one of these types calls PHP, not the corpus.

Invariants a change must keep:
- Keys are lower-case fully qualified names without a leading backslash.
- The list only labels: a class the corpus does not declare is external whether or
  not it is listed here (vendor code); a listed name the corpus declares itself (a
  polyfill) is the corpus's class.
"""

from __future__ import annotations

#: lower-case name -> the name as PHP spells it
BUILTIN_CLASSES: dict[str, str] = {
    n.lower(): n
    for n in """
    stdClass Closure Generator WeakReference WeakMap Fiber Stringable Traversable Iterator
    IteratorAggregate ArrayAccess Countable Serializable JsonSerializable UnitEnum BackedEnum
    Throwable Exception Error ErrorException TypeError ValueError ArithmeticError
    DivisionByZeroError ArgumentCountError AssertionError CompileError ParseError
    UnhandledMatchError FiberError JsonException
    LogicException BadFunctionCallException BadMethodCallException DomainException
    InvalidArgumentException LengthException OutOfRangeException RuntimeException
    OutOfBoundsException OverflowException RangeException UnderflowException
    UnexpectedValueException
    ArrayObject ArrayIterator RecursiveArrayIterator AppendIterator CachingIterator
    RecursiveCachingIterator CallbackFilterIterator RecursiveCallbackFilterIterator
    DirectoryIterator FilesystemIterator RecursiveDirectoryIterator GlobIterator EmptyIterator
    FilterIterator RecursiveFilterIterator ParentIterator InfiniteIterator IteratorIterator
    LimitIterator MultipleIterator NoRewindIterator RecursiveIteratorIterator
    RecursiveTreeIterator RegexIterator RecursiveRegexIterator OuterIterator RecursiveIterator
    SeekableIterator SplObserver SplSubject SplDoublyLinkedList SplQueue SplStack SplHeap
    SplMaxHeap SplMinHeap SplPriorityQueue SplFixedArray SplObjectStorage SplFileInfo
    SplFileObject SplTempFileObject
    DateTime DateTimeImmutable DateTimeInterface DateTimeZone DateInterval DatePeriod
    PDO PDOStatement PDOException PDORow
    mysqli mysqli_result mysqli_stmt mysqli_driver mysqli_warning mysqli_sql_exception
    SQLite3 SQLite3Stmt SQLite3Result
    ReflectionClass ReflectionObject ReflectionMethod ReflectionFunction
    ReflectionFunctionAbstract ReflectionProperty ReflectionParameter ReflectionNamedType
    ReflectionUnionType ReflectionType ReflectionException ReflectionClassConstant
    ReflectionEnum ReflectionExtension ReflectionGenerator ReflectionAttribute Reflector
    DOMDocument DOMElement DOMNode DOMNodeList DOMXPath DOMAttr DOMText DOMComment
    DOMDocumentFragment DOMException DOMImplementation DOMNamedNodeMap DOMCharacterData
    SimpleXMLElement SimpleXMLIterator XMLReader XMLWriter XSLTProcessor LibXMLError
    ZipArchive Phar PharData PharFileInfo PharException
    IntlDateFormatter NumberFormatter Collator Normalizer Locale MessageFormatter
    ResourceBundle Transliterator IntlException IntlCalendar IntlTimeZone IntlBreakIterator
    Spoofchecker UConverter IntlChar
    finfo CURLFile CurlHandle CurlMultiHandle CurlShareHandle GdImage Imagick ImagickDraw
    ImagickPixel ImagickException SessionHandler SessionHandlerInterface
    SessionIdInterface SessionUpdateTimestampHandlerInterface
    SoapClient SoapServer SoapFault SoapHeader SoapParam SoapVar
    php_user_filter Directory HashContext InflateContext DeflateContext
    Random\\Randomizer Random\\Engine Attribute ReturnTypeWillChange AllowDynamicProperties
    SensitiveParameter Override
    """.split()
}


def is_builtin_class(lower_fqn: str) -> bool:
    return lower_fqn.lstrip("\\") in BUILTIN_CLASSES


#: PHP functions that take callables, and which of their (0-based) arguments are callables:
#: a string passed there names a function
BUILTIN_CALLBACKS: dict[str, tuple[int, ...]] = {
    "array_map": (0,),
    "array_filter": (1,),
    "array_walk": (1,),
    "array_walk_recursive": (1,),
    "array_reduce": (1,),
    "usort": (1,),
    "uasort": (1,),
    "uksort": (1,),
    "call_user_func": (0,),
    "call_user_func_array": (0,),
    "forward_static_call": (0,),
    "forward_static_call_array": (0,),
    "is_callable": (0,),
    "function_exists": (0,),
    "set_error_handler": (0,),
    "set_exception_handler": (0,),
    "register_shutdown_function": (0,),
    "register_tick_function": (0,),
    "spl_autoload_register": (0,),
    "ob_start": (0,),
    "header_register_callback": (0,),
    "preg_replace_callback": (1,),
    "mb_ereg_replace_callback": (1,),
    "iterator_apply": (1,),
    "pcntl_signal": (1,),
    "session_set_save_handler": (0, 1, 2, 3, 4, 5, 6, 7),
    "xml_set_element_handler": (1, 2),
    "xml_set_character_data_handler": (1,),
    "xml_set_default_handler": (1,),
    "xml_set_processing_instruction_handler": (1,),
}


def builtin_callback_position(function: str, position: int) -> bool:
    """Does PHP's ``function`` (lower, no namespace) take a callable at ``position``?"""
    return position in BUILTIN_CALLBACKS.get(function.lstrip("\\"), ())
