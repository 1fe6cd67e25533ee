"""The user-facing text of PHP code (issue 46): translation, exception and log messages."""

from __future__ import annotations

from ragraf.lang.php.ui_strings import ui_tokens, user_text
from ragraf.lang.php.walk import extract

CODE = """<?php
function login($u) {
    // a comment: __('not this one')
    if ($blocked) {
        self::exception(ZBX_API_ERROR_PERMISSIONS,
            _('Incorrect user name or password or account is temporarily blocked.'));
    }
    throw new \\InvalidArgumentException("Bad value {$v} for %s", 3);
    ZM\\Warning('Ignored command for zmcontrol $option in $command');
    $this->logger->error('Failed to connect: %1$s', [$e]);
    echo esc_html__( 'Too many failed login attempts', 'default' );
    $f = $error('a variable function is no call of error()');
    foo_e('no translation call');
    wfMessage( 'login-throttled' )->text();
    _s('Image size must be less than %1$s.', convertUnits(['value' => 1, 'units' => 'B']));
}
"""


def test_the_literal_arguments_of_translation_exception_and_log_calls() -> None:
    assert user_text(CODE).splitlines() == [
        "Incorrect user name or password or account is temporarily blocked.",
        "Bad value   for",
        "Ignored command for zmcontrol   in",
        "Failed to connect:",
        "Too many failed login attempts",
        "login-throttled",
        "Image size must be less than  .",
    ]


def test_no_user_text_is_no_tokens() -> None:
    assert ui_tokens("<?php\nfunction f() { return strlen('abc def'); }\n") == ""
    assert "temporarily" in ui_tokens(CODE).split()


def test_a_php_chunk_carries_its_user_text() -> None:
    f = extract("src/Auth.php", CODE)
    (chunk,) = [c for c in f.chunks if c.node is not None and f.nodes[c.node].name == "login"]
    assert "blocked" in chunk.ui_tokens.split() and "throttled" in chunk.ui_tokens.split()
    assert "comment" not in chunk.ui_tokens.split()
