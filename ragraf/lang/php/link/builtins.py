"""Classes and interfaces PHP itself declares (core, SPL, date, PDO, mysqli, intl,
reflection, DOM, ...): a receiver of one of these types calls PHP, not the corpus.

Invariants a change must keep:
- Keys are lower-case fully qualified names without a leading backslash.
- The list only labels: a class the corpus does not declare is external whether or
  not it is listed here (vendor code); a listed name the corpus declares itself (a
  polyfill) is the corpus's class.
"""

from __future__ import annotations

from ragraf.lang.php.callables import BUILTIN_CALLBACKS

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


def builtin_callback_position(function: str, position: int) -> bool:
    """Does PHP's ``function`` (lower, no namespace) take a callable at ``position``?"""
    return position in BUILTIN_CALLBACKS.get(function.lstrip("\\"), ())


#: lower-case names of methods of the PHP classes code meets most without saying so (date,
#: the SPL interfaces, exceptions, PDO, mysqli, reflection, files, ZipArchive, XMLReader,
#: SimpleXML, DOM, Imagick): a call of one on a receiver of unknown type may run PHP's own
#: method, so a same-name corpus method is no match by name (``registry.builtin_methods``).
#: Names as general as ``save``, ``send`` or ``add`` are left out: there the corpus's
#: methods are likelier than a rarer PHP class's
BUILTIN_METHODS: frozenset[str] = frozenset(
    """
    format gettimestamp settimestamp getoffset gettimezone settimezone modify setdate
    setisodate settime diff createfromformat getlasterrors gettransitions
    current key next rewind valid getiterator getinneriterator offsetget offsetset
    offsetexists offsetunset count jsonserialize getarraycopy exchangearray
    getmessage getcode getfile getline gettrace getprevious gettraceasstring
    prepare query exec quote begintransaction commit rollback lastinsertid errorinfo
    errorcode setattribute getattribute intransaction execute fetch fetchall fetchcolumn
    fetchobject bindparam bindvalue bindcolumn rowcount columncount closecursor
    setfetchmode nextrowset getcolumnmeta
    real_escape_string escape_string close select_db set_charset ping autocommit
    multi_query store_result use_result more_results next_result real_connect
    get_server_info character_set_name fetch_assoc fetch_row fetch_array fetch_object
    fetch_all fetch_field fetch_fields fetch_field_direct free_result data_seek field_seek
    bind_param bind_result get_result send_long_data
    getelementsbytagname getelementbyid hasattribute removeattribute appendchild
    removechild replacechild insertbefore clonenode createelement createtextnode
    createattribute createdocumentfragment importnode loadhtml loadxml savehtml savexml
    haschildnodes getnodepath xpath asxml addchild addattribute registerxpathnamespace
    getnamespaces getdocnamespaces movetoattribute movetonextattribute movetoelement
    readstring open read
    addfile addfromstring addemptydir extractto getfromname getfromindex statindex statname
    locatename getnameindex deletename deleteindex renamename getstatusstring
    newinstance newinstanceargs newinstancewithoutconstructor invoke invokeargs getmethods
    getmethod getproperties getproperty hasmethod hasproperty getparameters getdoccomment
    ispublic isprivate isprotected isstatic isabstract isfinal isinterface setaccessible
    getshortname getnamespacename getparentclass implementsinterface issubclassof
    getconstants getconstant getreturntype allowsnull isdefaultvalueavailable
    getdefaultvalue getstartline getendline getdeclaringclass getinterfacenames
    getnumberofparameters isbuiltin isoptional isvariadic ispassedbyreference getname
    getfilename getpathname getextension getbasename getrealpath getmtime getctime getatime
    getperms isdir isfile islink isreadable iswritable isexecutable openfile fgets fgetcsv
    fputcsv fwrite fread feof fflush ftell fseek ftruncate flock eof setcsvcontrol isdot
    readimage readimageblob writeimage writeimages getimageblob getimagewidth
    getimageheight getimagegeometry setimageformat getimageformat resizeimage scaleimage
    cropimage thumbnailimage rotateimage flipimage flopimage setimagecompressionquality
    getimagecompressionquality setimagecompression stripimage getimageproperties
    setimageproperty setoption setiteratorindex setimagepage getnumberimages queryformats
    setimageorientation getimageorientation setimagedepth setcolorspace
    transformimagecolorspace getimagecolorspace setimagealphachannel getimagealphachannel
    compositeimage sharpenimage unsharpmaskimage setsamplingfactors setinterlacescheme
    setimageinterlacescheme getimagemimetype getimageresolution setimageresolution
    setimageunits getimagescene setimagescene pingimage coalesceimages deconstructimages
    """.split()
)
