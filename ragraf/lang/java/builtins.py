"""The public types of ``java.lang`` (Java 21), which every Java file sees without an
import: an external simple type name among these is named ``java.lang.<Name>``."""

from __future__ import annotations

JAVA_LANG = frozenset(
    """
    AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException
    ArrayStoreException AssertionError AutoCloseable Boolean BootstrapMethodError Byte
    Character CharSequence Class ClassCastException ClassCircularityError
    ClassFormatError ClassLoader ClassNotFoundException ClassValue Cloneable
    CloneNotSupportedException Comparable Deprecated Double Enum EnumConstantNotPresentException
    Error Exception ExceptionInInitializerError Float FunctionalInterface IllegalAccessError
    IllegalAccessException IllegalArgumentException IllegalCallerException
    IllegalMonitorStateException IllegalStateException IllegalThreadStateException
    IncompatibleClassChangeError IndexOutOfBoundsException InheritableThreadLocal
    InstantiationError InstantiationException Integer InternalError InterruptedException
    Iterable LayerInstantiationException LinkageError Long MatchException Math Module
    ModuleLayer NegativeArraySizeException NoClassDefFoundError NoSuchFieldError
    NoSuchFieldException NoSuchMethodError NoSuchMethodException NullPointerException
    Number NumberFormatException Object OutOfMemoryError Override Package Process
    ProcessBuilder ProcessHandle Readable Record ReflectiveOperationException Runnable
    Runtime RuntimeException SafeVarargs ScopedValue SecurityException SecurityManager
    Short StackOverflowError StackTraceElement StackWalker StrictMath String
    StringBuffer StringBuilder StringIndexOutOfBoundsException StringTemplate
    SuppressWarnings System Thread ThreadDeath ThreadGroup ThreadLocal Throwable
    TypeNotPresentException UnknownError UnsatisfiedLinkError UnsupportedClassVersionError
    UnsupportedOperationException VerifyError VirtualMachineError Void WrongThreadException
    """.split()
)
