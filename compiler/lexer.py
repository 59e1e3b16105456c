"""fdc's regex lexer: one compiled pattern feeding Lark's LALR parser.

PDDL is case-insensitive, so names and keywords are lower-cased here and the grammar
only ever sees lower case. Comments run from `;` to the end of the line and may hold
any bytes. Tokens carry offsets only; line and column are computed from the offset
when a diagnostic needs them (`SourceFile.position`).
See docs/language.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lark import Token
from lark.lexer import Lexer

from fdc.core.errors import FdcError
from fdc.core.limits import current, hint


class LexError(FdcError):
    """A character sequence that starts no token."""

    def __init__(self, message: str, pos: int, hint: str = "", code: str = "P002") -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.code = code



class FastToken(Token):
    """A Lark token that stores offsets only: line/column come from `SourceFile`."""

    __slots__ = ()
    line = None
    column = None
    end_line = None
    end_column = None


#: Reserved words (after lower-casing). Words real domains also use as names
#: (`at`, `over`, `start`, `end`, `all`, `minimize`, PDDL3 modal operators) are NAMEs.
WORD_KEYWORDS: dict[str, str] = {
    "define": "DEFINE",
    "domain": "DOMAIN",
    "problem": "PROBLEM",
    "template": "TEMPLATE",
    "and": "AND",
    "or": "OR",
    "not": "NOT",
    "imply": "IMPLY",
    "exists": "EXISTS",
    "forall": "FORALL",
    "when": "WHEN",
    "either": "EITHER",
    "preference": "PREFERENCE",
    "assign": "ASSIGN_OP",
    "increase": "ASSIGN_OP",
    "decrease": "ASSIGN_OP",
    "scale-up": "ASSIGN_OP",
    "scale-down": "ASSIGN_OP",
    "at-least": "COUNT",
    "at-most": "COUNT",
    "exactly": "COUNT",
    "forn": "COUNT",
    "forpairs": "FORPAIRS",
    "fornpairs": "FORNPAIRS",
    "argmax": "EXTREME",
    "argmin": "EXTREME",
    "targets": "TARGETS",
    "ordered-targets": "ORDERED_TARGETS",
    "then": "THEN",
}

#: Section keywords; any other `:word` is a KEYWORD (a requirement flag, say).
COLON_KEYWORDS: dict[str, str] = {
    ":requirements": "K_REQUIREMENTS",
    ":types": "K_TYPES",
    ":constants": "K_CONSTANTS",
    ":predicates": "K_PREDICATES",
    ":functions": "K_FUNCTIONS",
    ":constraints": "K_CONSTRAINTS",
    ":action": "K_ACTION",
    ":durative-action": "K_DURATIVE_ACTION",
    ":derived": "K_DERIVED",
    ":parameters": "K_PARAMETERS",
    ":precondition": "K_PRECONDITION",
    ":effect": "K_EFFECT",
    ":duration": "K_DURATION",
    ":condition": "K_CONDITION",
    ":domain": "K_DOMAIN",
    ":objects": "K_OBJECTS",
    ":init": "K_INIT",
    ":goal": "K_GOAL",
    ":metric": "K_METRIC",
    ":category": "K_CATEGORY",
    ":level": "K_LEVEL",
    ":tags": "K_TAGS",
    ":version": "K_VERSION",
    ":instruction": "K_INSTRUCTION",
    ":instruction-file": "K_INSTRUCTION_FILE",
    ":ambiguity": "K_AMBIGUITY",
    ":description": "K_DESCRIPTION",
    ":thresholds": "K_THRESHOLDS",
}

# Whitespace and comments are swallowed in front of every token, so one `match` call
# yields one token. The groups are tried in order.
_TOKEN = re.compile(
    r"""(?:\s+|;[^\n]*)*(?:
      (?P<LPAR>\()
    | (?P<RPAR>\))
    | (?P<VAR>\?[^\s()";?]*)
    | (?P<NAME>[A-Za-z_#@][^\s()";?]*)
    | (?P<NUMBER>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![^\s()";]))
    | (?P<MINUS>-(?![^\s()";]))
    | (?P<COMP><=|>=|<|>|=)(?![^\s()";])
    | (?P<ARITH>[+*/])(?![^\s()";])
    | (?P<KEYWORD>:[^\s()";?]+)
    | (?P<STRING>"(?:[^"\\]|\\.)*")
    | (?P<END>\Z)
    )""",
    re.VERBOSE,
)
_SKIP = re.compile(r"(?:\s+|;[^\n]*)*")
_JUNK = re.compile(r"[^\s()\";]+|\S")


def make_token(type_: str, value: str, start: int, end: int) -> Token:
    tok = str.__new__(FastToken, value)
    tok.type = type_
    tok.value = value
    tok.start_pos = start
    tok.end_pos = end
    return tok


def tokenize(text: str, begin: int = 0) -> Iterator[Token]:
    """Yield the tokens of `text` from offset `begin`; raise `LexError` at the first bad
    character."""
    match = _TOKEN.match
    words = WORD_KEYWORDS
    colons = COLON_KEYWORDS
    pos = begin
    depth = 0
    deepest = current().paren_depth
    while True:
        m = match(text, pos)
        if m is None:
            start = pos
            ws = _SKIP.match(text, pos)
            raise _lex_error(text, ws.end() if ws else start)
        kind: str = m.lastgroup  # type: ignore[assignment]  # every alternative is a group
        start = m.start(kind)
        end = m.end()
        pos = end
        if kind == "NAME":
            value = m.group(kind).lower()
            yield make_token(words.get(value, "NAME"), value, start, end)
        elif kind == "LPAR":
            depth += 1
            if depth > deepest:
                raise LexError(
                    f"parentheses nest more than {deepest} deep here, the "
                    "limit `paren_depth`",
                    start,
                    "real PDDL nests a few dozen levels; flatten this formula, or "
                    + hint("paren_depth"),
                    code="P005",
                )
            yield make_token(kind, "(", start, end)
        elif kind == "RPAR":
            depth -= 1
            yield make_token(kind, ")", start, end)
        elif kind == "VAR":
            value = m.group(kind).lower()
            if len(value) == 1:
                raise LexError("a variable needs a name after `?`", start, "write `?x`")
            yield make_token("VAR", value, start, end)
        elif kind == "KEYWORD":
            value = m.group(kind).lower()
            yield make_token(colons.get(value, "KEYWORD"), value, start, end)
        elif kind == "STRING":
            yield make_token("STRING", m.group(kind), start, end)
        elif kind == "END":
            return
        elif kind == "NUMBER":
            _check_number(m.group(kind), start)
            yield make_token(kind, m.group(kind), start, end)
        else:
            yield make_token(kind, m.group(kind), start, end)


def _check_number(text: str, pos: int) -> None:
    """A number within the limit `number_digits` (Python refuses to convert integers of
    more than 4,300 digits; fdc stops far earlier, with a located error)."""
    digits = current().number_digits
    if len(text) > digits:
        raise LexError(f"a number of {len(text)} characters, longer than the limit "
                       f"`number_digits` ({digits})", pos, hint("number_digits"), code="P006")


def _lex_error(text: str, pos: int) -> LexError:
    if text.startswith('"', pos):
        return LexError(
            "unterminated string", pos, 'close the string with `"` (write `\\"` for a quote inside)'
        )
    junk = _JUNK.match(text, pos)
    word = junk.group(0) if junk else text[pos : pos + 1]
    if word[0].isdigit() or word[0] == "-":
        return LexError(
            f"`{word}` is neither a number nor a name",
            pos,
            "names start with a letter; numbers look like `3`, `-2.5` or `1e3`",
        )
    return LexError(
        f"unexpected character `{word[0]}`",
        pos,
        "PDDL names start with a letter and hold letters, digits, `-` and `_`",
    )


class FdcLexer(Lexer):
    """Adapter that lets Lark's LALR parser pull tokens from `tokenize`."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, data: str) -> Iterator[Token]:  # type: ignore[override]
        return tokenize(data)
