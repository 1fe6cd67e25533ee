"""Classes and interfaces PHP and its common extensions declare (lower case, global namespace).

A receiver of one of these types calls a method outside the corpus, so no corpus method is the
target. The list also lets the oracle trust a docblock that names such a class (a docblock naming
a class that is neither here, nor in the corpus, nor imported is treated as unknown: it may be a
typo).
"""

from __future__ import annotations

BUILTIN_CLASSES = frozenset(
    n.lower()
    for n in """
stdClass Closure Generator WeakReference WeakMap Fiber Stringable Traversable Iterator
IteratorAggregate ArrayAccess Countable Serializable JsonSerializable UnitEnum BackedEnum
Throwable Exception Error ErrorException TypeError ValueError ArithmeticError DivisionByZeroError
ArgumentCountError AssertionError CompileError ParseError UnhandledMatchError FiberError
JsonException LogicException BadFunctionCallException BadMethodCallException DomainException
InvalidArgumentException LengthException OutOfRangeException RuntimeException
OutOfBoundsException OverflowException RangeException UnderflowException UnexpectedValueException
ArrayObject ArrayIterator RecursiveArrayIterator AppendIterator CachingIterator
RecursiveCachingIterator CallbackFilterIterator RecursiveCallbackFilterIterator DirectoryIterator
FilesystemIterator RecursiveDirectoryIterator GlobIterator EmptyIterator FilterIterator
RecursiveFilterIterator ParentIterator InfiniteIterator IteratorIterator LimitIterator
MultipleIterator NoRewindIterator RecursiveIteratorIterator RecursiveTreeIterator RegexIterator
RecursiveRegexIterator OuterIterator RecursiveIterator SeekableIterator SplDoublyLinkedList
SplQueue SplStack SplHeap SplMaxHeap SplMinHeap SplPriorityQueue SplFixedArray SplObjectStorage
SplObserver SplSubject SplFileInfo SplFileObject SplTempFileObject
DateTime DateTimeImmutable DateTimeInterface DateTimeZone DateInterval DatePeriod
PDO PDOStatement PDOException PDORow mysqli mysqli_result mysqli_stmt mysqli_driver
mysqli_warning mysqli_sql_exception SQLite3 SQLite3Stmt SQLite3Result
DOMDocument DOMNode DOMElement DOMAttr DOMText DOMComment DOMNodeList DOMNamedNodeMap
DOMXPath DOMImplementation DOMDocumentFragment DOMCharacterData DOMCdataSection DOMException
DOMProcessingInstruction DOMEntity DOMEntityReference DOMNotation DOMDocumentType
SimpleXMLElement SimpleXMLIterator XMLReader XMLWriter XSLTProcessor LibXMLError
ReflectionClass ReflectionObject ReflectionMethod ReflectionFunction ReflectionFunctionAbstract
ReflectionProperty ReflectionParameter ReflectionNamedType ReflectionType ReflectionException
ReflectionClassConstant ReflectionEnum ReflectionExtension ReflectionAttribute Reflector
ZipArchive Phar PharData PharFileInfo finfo CURLFile CurlHandle CURLStringFile
IntlDateFormatter NumberFormatter Collator Normalizer Locale MessageFormatter IntlChar
Transliterator ResourceBundle Spoofchecker IntlBreakIterator IntlCalendar IntlTimeZone
Imagick ImagickDraw ImagickPixel ImagickException GdImage GMP
SessionHandler SessionHandlerInterface SessionIdInterface SessionUpdateTimestampHandlerInterface
php_user_filter Directory SoapClient SoapServer SoapFault SoapVar SoapHeader SoapParam
OpenSSLCertificate OpenSSLAsymmetricKey XMLParser Memcache Memcached Redis COM Attribute
ReturnTypeWillChange AllowDynamicProperties SensitiveParameter Random\\Randomizer
__PHP_Incomplete_Class
""".split()
)

#: builtin methods whose result is an object the oracle can name: "static" is the receiver's class
_FLUENT_DATE = ("modify", "add", "sub", "settimezone", "setdate", "setisodate", "settime")
BUILTIN_RETURNS: dict[tuple[str, str], str] = {
    **{("datetime", m): "static" for m in (*_FLUENT_DATE, "settimestamp")},
    **{("datetimeimmutable", m): "static" for m in (*_FLUENT_DATE, "settimestamp")},
    ("datetime", "gettimezone"): "datetimezone",
    ("datetimeimmutable", "gettimezone"): "datetimezone",
    ("datetime", "diff"): "dateinterval",
    ("datetimeimmutable", "diff"): "dateinterval",
    ("datetimeimmutable", "createfrommutable"): "datetimeimmutable",
    ("domdocument", "createelement"): "domelement",
    ("domdocument", "getelementbyid"): "domelement",
    ("domdocument", "getelementsbytagname"): "domnodelist",
    ("domxpath", "query"): "domnodelist",
    ("pdo", "prepare"): "pdostatement",
    ("pdo", "query"): "pdostatement",
    ("mysqli", "prepare"): "mysqli_stmt",
    ("mysqli", "query"): "mysqli_result",
    ("mysqli_stmt", "get_result"): "mysqli_result",
    ("reflectionclass", "getmethod"): "reflectionmethod",
    ("reflectionclass", "getproperty"): "reflectionproperty",
    ("simplexmlelement", "addchild"): "simplexmlelement",
}
