"""Credentials in repository text, redacted before anything of the text is kept or served.

``secrets_exclude`` keeps well-known secret files out of the corpus by name; a credential
can sit in any file (``define('DB_PASSWORD', '...')`` in a ``wp-config.php`` copied under
another name, a ``.env`` copy called ``secrets.env.php``, a key pasted into a test). The
corpus scan and ``live_read`` pass every text through ``redact`` first, so the stored text
(file blobs, chunks, the lexicon, vectors) and every answer hold ``[REDACTED]`` where the
value was.

What counts as a credential (kept narrow: a false positive costs a literal in search):
- the value of a constant whose name ends in password, passwd, passphrase, pwd, secret,
  salt, credentials, an auth / api / secret / private / access / app / nonce / logged-in
  / encryption / signing key or an api / auth / access / secret / bearer token
  (``define('DB_PASSWORD', 'v')``, ``define('AUTH_KEY', 'v')``, ``const API_TOKEN =
  'v'``; a ``CACHE_KEY`` is not), and of an env-file line whose name ends so or in KEY
  or TOKEN (``DB_PASSWORD=v``, ``export APP_KEY=v``);
- the quoted literal assigned in code to a name ending in password, passwd, passphrase,
  pwd, secret, an api / access / auth / private / secret key or an access / auth / api
  token (``$db_password = 'v'``, ``'password' => 'v'``, ``client_secret: "v"``) when the
  value looks like a secret: ASCII, no white space, not a URL, a path, an interpolation
  or a reference (``@service``, ``%param%``), and, after a password / passwd /
  passphrase / pwd / secret, 4 characters or more that are no capitalised word (a label:
  ``'Password'``), no identifier with an underscore (``'FTP_PASS'``) and no word naming
  a credential itself (``'newpassword'``), else 6 or more with a digit or a symbol
  (``x8#kL0!q``). A name that goes on after the word (``passwordreset``) is no
  credential's;
- the body of a PEM private key block (its BEGIN / END lines stay);
- tokens whose shape names their issuer: AWS access key ids, GitHub, Slack, Google API
  and Stripe live keys.

Invariants a change must keep:
- Lines are never added or removed (a redacted key block keeps its line count), so every
  line number ragraf records still points at the same line of the file.
- A pure function of the text, linear in its length. The patterns run on the UTF-8 bytes
  (``bytes.lower`` lowers ASCII letters only, so offsets stay those of the bytes; a
  case-insensitive alternation costs ~10x), each starts at a literal or a word found by
  one scan, and none begins with an unbounded repetition. A text with nothing to redact
  is returned as it is.
"""

from __future__ import annotations

import re

MARK = "[REDACTED]"
_MARK = MARK.encode()

#: the words that end a credential's name in code (``$db_password``, ``'api_key'``,
#: ``client_secret``), found in the lowered bytes; ``key`` and ``token`` only after a word
#: of ``_QUALIFIERS`` (a bare one is a lexer token or an array key), ``salt`` never (a
#: constant's or env variable's name only)
_WORDS = (b"password", b"passwd", b"passphrase", b"pwd", b"secret", b"credential", b"key", b"token")
_QUALIFIED = (b"key", b"token")
_QUALIFIERS = re.compile(rb"(?:secret|api|access|auth|private|client)_?\Z")
#: after a name's last word: digits, a closing quote / bracket, an operator, a literal
_ASSIGNED = re.compile(
    rb"[0-9]{0,3}['\"\]]{0,3}\s{0,20}(?:=>|=|:)\s{0,20}(?P<q>['\"])(?P<v>[^'\"\s]{1,200})(?P=q)"
)
#: a constant: ``define('NAME', 'v')`` or ``const NAME = 'v'`` (any value); each pattern
#: leads with its literal, which the engine finds fast
_CONSTANTS = (
    re.compile(
        rb"define\s{0,20}\(\s{0,20}['\"](?P<n>[A-Z0-9_]{1,80})['\"]\s{0,20},"
        rb"\s{0,20}(?P<q>['\"])(?P<v>[^'\"\n]{1,200})(?P=q)"
    ),
    re.compile(
        rb"const\s+(?P<n>[A-Z0-9_]{1,80})\s{0,20}=\s{0,20}(?P<q>['\"])(?P<v>[^'\"\n]{1,200})(?P=q)"
    ),
)
#: how a credential constant's name ends: ``DB_PASSWORD``, ``AUTH_KEY``, ``NONCE_SALT``
_CONST_NAME = re.compile(
    rb".*?(?:PASS(?:WORD|WD|PHRASE)|PWD|SECRET|SALT|CREDENTIALS?"
    rb"|(?:AUTH|API|SECRET|PRIVATE|ACCESS|LOGGED_IN|NONCE|APP|ENCRYPTION|SIGNING)_?KEY"
    rb"|(?:API|AUTH|ACCESS|SECRET|BEARER)_?TOKEN)[0-9]*"
)
#: an env-file line ``NAME=value`` (the name upper case from the line's start), matched
#: after a newline (a literal start: ``(?m)^`` tries every line and scans ~5x slower)
_ENV_LINE = re.compile(
    rb"\n(?=[A-Ze])(?:export[ \t]+)?[A-Z0-9_]*(?:PASS(?:WORD|WD|PHRASE)?|PWD|SECRET|SALT|CREDENTIALS?"
    rb"|KEY|TOKEN)[0-9]*[ \t]*=[ \t]*(?P<v>[^\s'\"#][^\s#]{3,})"
)
_KEY_BLOCK = re.compile(
    rb"(-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----)(?P<body>.*?)(-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)",
    re.S,
)
#: issuers' token shapes, one literal-led pattern each (an alternation would scan slower)
_TOKENS = tuple(
    re.compile(p)
    for p in (
        rb"AKIA[0-9A-Z]{16}\b",
        rb"gh[pousr]_[A-Za-z0-9]{36,}\b",
        rb"xox[abprs]-[A-Za-z0-9-]{10,}",
        rb"AIza[0-9A-Za-z_-]{35}\b",
        rb"sk_live_[0-9A-Za-z]{24,}\b",
    )
)
_SYMBOL_OR_DIGIT = re.compile(rb"[0-9!#$%&*+;<=>?@^|~(){}]")


#: a name ending in these holds a password whatever it looks like (``$wgDBpassword =
#: 'hunter'``), but a label (``'Password'``): any value of 4 or more characters
_PLAIN_WORDS = frozenset({b"password", b"passwd", b"passphrase", b"pwd", b"secret"})
_LABEL = re.compile(rb"[A-Z][a-z]+")


#: what a value of code is when it is no secret: a name (``FTP_PASS``, ``user_pass``), a
#: word that repeats the credential's (``'newpassword'``), a mask (``[------]``)
_IDENTIFIER = re.compile(rb"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*")
_NAMES_A_CREDENTIAL = re.compile(rb"(?i)pass|pwd|secret")
_ALNUM = re.compile(rb"[A-Za-z0-9]")


def _plain_value(value: bytes) -> bool:
    """A value of code that is a literal, not a reference to something else."""
    return (
        value.isascii()
        and b"://" not in value
        and b"{$" not in value
        and b"${" not in value
        and b"\\" not in value
        and not value.startswith((b"/", b"$", b"{", b"%", b"@"))
        and _ALNUM.search(value) is not None
    )


def _looks_secret(value: bytes, plain: bool = False) -> bool:
    if not _plain_value(value):
        return False
    if plain and len(value) >= 4:
        return not (
            _LABEL.fullmatch(value)
            or _IDENTIFIER.fullmatch(value)
            or _NAMES_A_CREDENTIAL.search(value)
        )
    return len(value) >= 6 and _SYMBOL_OR_DIGIT.search(value) is not None


def _spans(data: bytes) -> list[tuple[int, int]]:
    """The byte (start, end) of every credential value in ``data``, in order, disjoint."""
    found: list[tuple[int, int]] = []
    for rx in _CONSTANTS:
        for c in rx.finditer(data):
            if c.group("v").strip() and _CONST_NAME.fullmatch(c.group("n")):
                found.append(c.span("v"))
    lowered = data.lower()
    for word in _WORDS:
        at = lowered.find(word)
        while at >= 0:
            end = at + len(word)
            if word in _QUALIFIED and not _QUALIFIERS.search(lowered, max(0, at - 8), at):
                at = lowered.find(word, end)
                continue
            m = _ASSIGNED.match(
                data, end + (word == b"credential" and lowered[end : end + 1] == b"s")
            )
            if m is not None and _looks_secret(m.group("v"), word in _PLAIN_WORDS):
                found.append(m.span("v"))
            at = lowered.find(word, end)
    if b"=" in data:  # on the text after a newline of its own: offsets one further
        found += [(m.start("v") - 1, m.end("v") - 1) for m in _ENV_LINE.finditer(b"\n" + data)]
    for rx in _TOKENS:
        found += [m.span() for m in rx.finditer(data)]
    out: list[tuple[int, int]] = []
    for span in sorted(set(found)):
        if not out or span[0] >= out[-1][1]:
            out.append(span)
    return out


def _block(m: re.Match[bytes]) -> bytes:
    lines = m.group("body").count(b"\n")
    body = b"\n" + b"\n".join([_MARK] * max(lines - 1, 0)) + (b"\n" if lines else _MARK)
    return m.group(1) + body + m.group(3)


def redact(text: str) -> tuple[str, int]:
    """``text`` with its credentials replaced by ``MARK``, and how many were."""
    data = text.encode("utf-8", "surrogatepass")
    count = 0
    if b"PRIVATE KEY-----" in data:
        data, count = _KEY_BLOCK.subn(_block, data)
    spans = _spans(data)
    if not spans and not count:
        return text, 0
    parts: list[bytes] = []
    at = 0
    for start, end in spans:
        parts += (data[at:start], _MARK)
        at = end
    parts.append(data[at:])
    return b"".join(parts).decode("utf-8", "surrogatepass"), count + len(spans)
