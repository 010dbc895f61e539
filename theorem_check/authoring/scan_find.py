"""Finding a paper's numbered display equations and shape declarations (``theorem-check scan``, issue 20).

Three formats, chosen by :func:`text_format` from the file name:

``tex``
    ``equation``, ``align``, ``gather``, ``multline``, ``eqnarray``, ``flalign``, ``alignat`` (numbered;
    their starred forms and ``\\[...\\]`` only where a row has ``\\tag{N}``).  Numbers are those LaTeX
    gives: a counter over the document, one per row not marked ``\\nonumber``/``\\notag``, or with
    ``\\numberwithin{equation}{section}`` ``S.k`` reset at each ``\\section`` (``A.k``, ``B.k`` after
    ``\\appendix``); ``subequations`` and ``\\setcounter`` are not followed; ``\\tag{N}`` wins; the
    row's ``\\label`` is kept.
``md``
    ``$$...$$`` followed by ``(N)`` (on the same or the next line) or containing ``\\tag{N}``.
``txt``
    Plain-text exports of papers: the ``md`` forms, and bare LaTeX followed by its number as
    ``... (31)`` (the arXiv-HTML export: a garbled rendering, then the display's clean LaTeX, then the
    number; a multi-row display repeats ``\\displaystyle`` before each row).  The LaTeX is the run of
    whitespace-separated (brace-aware) tokens before the number that look like LaTeX (contain one of
    ``\\ { } _ ^``, or a relation between characters, ``A=B``; a word right after a control word,
    ``\\leq mn``, and a lone ``=``, ``+``, ``-`` between such tokens, belong to it).

Numbers are ``14``, ``B.3``, ``A4``, ``E9``.  A number *cited* in the prose (``Eq. (12)``,
``Eqs. (13)-(14)``, ``(25)–(26)``, ``identity (E9)``) whose display the text does not hold is returned
as a :class:`Display` with ``cited=True`` and no LaTeX (a review or a part of a paper cites equations it
does not print).  A row that begins with a relation (``&= ...``, ``\\displaystyle=0.``) continues the
display before it: ``continues`` holds that display's LaTeX so that the statement can be completed.

Declarations: ``NAME \\in \\mathbb{R}^{a \\times b}`` (``\\mathbb R``, ``\\R``, ``R``, ``ℝ``; several
names before one ``\\in``; ``U = (...)^\\top \\in ...`` declares ``U``); ``\\mathbb{R}^{d}`` is a column
(``(d, 1)``), ``\\mathbb{R}`` a scalar (``()``).  Structure (``\\succ 0``, ``O(n)``) is left to the
LaTeX reader's declaration parser.

>>> ds = find_displays(r"\\begin{equation} (AB)^\\top = B^\\top A^\\top \\label{eq:t} \\end{equation}", "tex")
>>> [(d.number, d.latex, d.label) for d in ds]
[('1', '(AB)^\\\\top = B^\\\\top A^\\\\top', 'eq:t')]
>>> find_declarations(r"where $W \\in \\mathbb{R}^{m \\times n}$ and $x\\in\\mathbb{R}^{n}$")[0].shape
('m', 'n')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from theorem_check.errors import InvalidArgument

__all__ = ["Display", "Declaration", "FORMATS", "matching_brace", "strip_comments", "text_format", "find_displays", "find_declarations",
           "find_structures", "strip_wrappers", "read_text"]

FORMATS = ("tex", "md", "txt")
"""The text formats :func:`find_displays` knows."""

_SUFFIX = {".tex": "tex", ".ltx": "tex", ".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt"}
_NUM = r"(?:[A-Z]\.?\d{1,3}|\d{1,3})"


@dataclass(frozen=True)
class Display:
    """One numbered display (or one row of a numbered ``align``) found in a text.

    ``number`` as printed (``"31"``, ``"B.3"``); ``latex`` the row's LaTeX (``""`` when ``cited``);
    ``line`` 1-based where the number (or the row) stands; ``label`` the ``\\label`` of a ``.tex`` row;
    ``continues`` the LaTeX of the display this row continues (it begins with a relation), else ``""``;
    ``cited`` True for a number the prose cites whose display the text does not hold.
    """

    number: str
    latex: str
    line: int
    label: str = ""
    continues: str = ""
    cited: bool = False


@dataclass(frozen=True)
class Declaration:
    """A shape declaration found in the text: ``name`` as written (LaTeX), ``shape`` a tuple of size
    expressions as written (``("d_{2}", "d")``; ``()`` a scalar, ``(d, "1")`` a column), ``line``."""

    name: str
    shape: tuple
    line: int
    text: str
    structure: str = ""


def text_format(path: str | Path) -> str:
    """``"tex"``, ``"md"`` or ``"txt"`` from the file's suffix (unknown suffixes are read as ``txt``)."""
    return _SUFFIX.get(Path(path).suffix.lower(), "txt")


def read_text(path: str | Path) -> str:
    """The file's text (UTF-8, undecodable bytes replaced).

    Raises InvalidArgument (``file=... must ...``) for a missing or unreadable file, a directory, or a
    binary file (a NUL byte in its first 8 KiB, or more than 10% of it undecodable).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        raise InvalidArgument(f"file={str(path)!r} must be a text file, not a directory") from None
    except OSError as exc:
        raise InvalidArgument(f"file={str(path)!r} must be a readable text file ({exc.strerror})") from None
    head = data[:8192]
    text = data.decode("utf-8", errors="replace")
    if b"\x00" in head or (head and text[:8192].count("\ufffd") > len(head) // 10):
        raise InvalidArgument(f"file={str(path)!r} must be a text file (.tex, .md or .txt); it looks binary")
    return text


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# ----------------------------------------------------------------------------------------------------
# relations at the start of a row
# ----------------------------------------------------------------------------------------------------
_LEAD_REL = re.compile(r"^(=|<|>|\\(?:le|ge|leq|geq|approx|propto|sim|simeq|equiv|to|neq|ne|coloneqq)\b|:=)")


def strip_wrappers(latex: str) -> str:
    """The row without layout: ``\\boxed{...}`` unwrapped, ``\\displaystyle``, ``&`` (outside inner
    environments such as ``cases``), ``\\label{}``,
    ``\\tag{}``, ``\\nonumber``, ``\\notag``, ``\\left``/``\\right`` kept; trailing ``.``/``,``/``;`` cut."""
    s = re.sub(r"\\(?:label|tag)\*?\{[^{}]*\}|\\nonumber\b|\\notag\b|\\displaystyle\b|\\textstyle\b", " ", latex)
    inner = [(m.start(), m.end()) for m in re.finditer(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", s, re.S)]
    s = "".join(" " if c == "&" and not any(a <= i < b for a, b in inner) else c for i, c in enumerate(s))
    while True:
        m = re.search(r"\\boxed\s*\{", s)
        if not m:
            break
        end = matching_brace(s, m.end() - 1)
        if end < 0:
            break
        s = s[:m.start()] + s[m.end():end] + s[end + 1:]
    s = " ".join(s.split())
    s = re.sub(r"(\\[,;!:]|\\quad|\\qquad|\s|[.,;])+$", "", s)
    return s.strip()


def matching_brace(s: str, open_pos: int) -> int:
    """Index of the brace closing the one at ``open_pos`` (-1 when unbalanced)."""
    depth = 0
    i = open_pos
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _starts_with_relation(latex: str) -> bool:
    return bool(_LEAD_REL.match(strip_wrappers(latex)))


# ----------------------------------------------------------------------------------------------------
# .tex
# ----------------------------------------------------------------------------------------------------
_ENVS = "equation|align|gather|multline|eqnarray|flalign|alignat"
_ENV_RE = re.compile(r"\\begin\{(" + _ENVS + r")(\*?)\}(?:\{\d+\})?(.*?)\\end\{\1\2\}", re.S)
_ROWS = {"align", "gather", "eqnarray", "flalign", "alignat"}


_ROW_END = re.compile(r"\\\\\*?(?:\s*\[[^\]]*\])?")
"""A row's end ``\\\\``, with its optional ``*`` and vertical space ``[4pt]`` (helper-44: ``4pt`` was read into the
next row)."""
_INTERTEXT = re.compile(r"\\(?:short)?intertext\s*\{")


def _split_rows(body: str) -> list[tuple[int, str]]:
    """Rows of an align-like body at top-level ``\\\\`` (not inside braces): (offset, text); an ``\\intertext{..}``
    (text between the rows) ends a row too and is dropped."""
    rows, depth, start, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        m = _ROW_END.match(body, i) if depth == 0 and c == "\\" else None
        if m:
            rows.append((start, body[start:i]))
            i = start = m.end()
            continue
        m = _INTERTEXT.match(body, i) if depth == 0 and c == "\\" else None
        if m:
            end = matching_brace(body, m.end() - 1)
            rows.append((start, body[start:i]))
            i = start = (end + 1) if end >= 0 else len(body)
            continue
        if c == "\\":
            i += 2
            continue
        depth += c == "{"
        depth -= c == "}"
        i += 1
    rows.append((start, body[start:]))
    return [(o, r) for o, r in rows if r.strip()]


_INNER = re.compile(r"\\begin\{(split|aligned|alignedat)\}(?:\[[tcb]\]|\{\d+\})?(.*?)\\end\{\1\}", re.S)


def _inner_rows_joined(body: str) -> str:
    """``\\begin{split} a &= b \\\\ &= c \\end{split}`` (also ``aligned``) as the one row ``a = b = c`` it
    numbers (helper-44: "unexpected '\\begin'"), of the same length so that offsets still point into the text."""
    def joined(m):
        inner = " ".join(r for _, r in _split_rows(m.group(2))).replace("&", " ")
        return inner.ljust(len(m.group(0)))[:len(m.group(0))] if len(inner) <= len(m.group(0)) else inner
    return _INNER.sub(joined, body)


def strip_comments(text: str) -> str:
    return re.sub(r"(?<!\\)%[^\n]*", lambda m: " " * len(m.group(0)), text)


def _section_numbers(text: str) -> list[tuple[int, str]]:
    """(position, number) of each numbered ``\\section``: 1, 2, ... and A, B, ... after ``\\appendix``."""
    events = sorted([(m.start(), "s") for m in re.finditer(r"\\section\s*(?!\*)[\[{]", text)]
                    + [(m.start(), "a") for m in re.finditer(r"\\appendix\b", text)])
    out, k, appendix = [], 0, False
    for pos, what in events:
        if what == "a":
            appendix, k = True, 0
            continue
        k += 1
        out.append((pos, chr(ord("A") + k - 1) if appendix else str(k)))
    return out


def _find_tex(text: str) -> list[Display]:
    text = strip_comments(text)
    out: list[Display] = []
    counter = 0
    spans = [(m.start(), m.end(), m.group(1), m.group(2) == "*", m.start(3), m.group(3))
             for m in _ENV_RE.finditer(text)]
    spans += [(m.start(), m.end(), "display", True, m.start(k), m.group(k))     # \[ .. \tag{5} \], $$ .. \tag{5} $$
              for m in re.finditer(r"\\\[(.*?)\\\]|\$\$(.*?)\$\$", text, re.S)
              for k in (1 if m.group(1) is not None else 2,) if "\\tag" in m.group(k)]
    within = re.search(r"\\numberwithin\s*\{equation\}\s*\{section\}", text) is not None
    sections = _section_numbers(text) if within else []
    prefix = last = ""
    for start, _, env, starred, off, body in sorted(spans):
        if within:   # equations numbered S.k, the counter reset at each \section (A.k, B.k after \appendix)
            here = [n for pos, n in sections if pos < start]
            prefix = here[-1] if here else "0"
            if prefix != last:
                counter, last = 0, prefix
        body = _inner_rows_joined(body)
        rows = _split_rows(body) if env in _ROWS else [(0, body)]
        prev = ""
        chain, chain_cont = "", ""   # unnumbered rows since the last numbered one, and what they continue
        for r_off, row in rows:
            tag = re.search(r"\\tag\*?\{([^{}]*)\}", row)
            label = re.search(r"\\label\{([^{}]*)\}", row)
            numbered = tag is not None or not (starred or re.search(r"\\no(?:number|tag)\b", row))
            starts = _starts_with_relation(row)
            if numbered:
                if tag:
                    number = tag.group(1).strip()
                else:
                    counter += 1
                    number = f"{prefix}.{counter}" if within else str(counter)
                latex = strip_wrappers(row)
                if chain and starts:   # "a &= b \nonumber \\ &= c (1)": (1) numbers the chain a = b = c, whose
                    latex, cont = f"{chain} {latex}", chain_cont   # first link was lost (helper-40)
                else:
                    cont = prev if prev and starts else ""
                out.append(Display(number, latex, _line_of(text, off + r_off + len(row) - len(row.lstrip())),
                                   label.group(1) if label else "", cont))
                chain, chain_cont = "", ""
            elif chain and starts:
                chain = f"{chain} {strip_wrappers(row)}"
            else:
                chain, chain_cont = strip_wrappers(row), (prev if prev and starts else "")
            prev = strip_wrappers(row)
    return out


# ----------------------------------------------------------------------------------------------------
# $$...$$ (md, txt)
# ----------------------------------------------------------------------------------------------------
_DOLLARS = re.compile(r"\$\$(.+?)\$\$([ \t]*(?:\n[ \t]*)?\((" + _NUM + r")\)(?![\w(]))?", re.S)


def _find_dollars(text: str) -> tuple[list[Display], list[tuple[int, int]]]:
    out, spans, prev = [], [], ""
    last_end = -1
    for m in _DOLLARS.finditer(text):
        body = m.group(1)
        spans.append((m.start(), m.end()))
        tag = re.search(r"\\tag\*?\{([^{}]*)\}", body)
        inside = re.search(r"\\q?quad\s*\((" + _NUM + r")\)\s*$", body)   # $$ ... \qquad (3) $$
        if inside and not m.group(3) and not tag:
            body = body[:inside.start()]
        number = m.group(3) or (tag.group(1).strip() if tag else None) or (inside.group(1) if inside else None)
        adjacent = last_end >= 0 and not text[last_end:m.start()].strip()
        if number:
            cont = prev if prev and adjacent and _starts_with_relation(body) else ""
            pos = m.start(3) if m.group(3) else m.start()
            out.append(Display(number, strip_wrappers(body), _line_of(text, pos), "", cont))
        prev = strip_wrappers(body)
        last_end = m.end()
    return out, spans


# ----------------------------------------------------------------------------------------------------
# bare LaTeX followed by (N) (txt)
# ----------------------------------------------------------------------------------------------------
_BARE = re.compile(r"\((" + _NUM + r")\)(?=\s|$)")
_LATEXISH = re.compile(r"\\[A-Za-z]|[{}_^]")


def _tokens_before(segment: str) -> list[tuple[int, str]]:
    """Whitespace-separated tokens of ``segment``, read backwards from its end so that a space inside
    braces does not split (garbled text before the LaTeX may hold a lone ``{``): (start, token)."""
    toks, depth, end = [], 0, None
    i = len(segment) - 1
    while i >= 0:
        c = segment[i]
        escaped = i > 0 and segment[i - 1] == "\\"
        if c.isspace() and depth <= 0:
            if end is not None:
                toks.append((i + 1, segment[i + 1:end]))
                end = None
            depth = 0
        else:
            if end is None:
                end = i + 1
            if not escaped:
                depth += c == "}"
                depth -= c == "{"
        i -= 1
    if end is not None:
        toks.append((0, segment[:end]))
    return toks[::-1]


def _looks_latex(tok: str) -> bool:
    """A token of clean LaTeX: ASCII with a command, brace, ``_`` or ``^``, or a relation between
    characters (``A=B``); a lone ``=`` or a word is garbled text or prose.  Inline ``$...$`` is prose."""
    if not tok.isascii() or tok.startswith("$") or tok.endswith("$"):
        return False
    return bool(_LATEXISH.search(tok)) or (len(tok) >= 3 and bool(re.search(r"\w\s*[=<>]|[=<>]\s*\w", tok)))


def _first_row(toks: list[tuple[int, str]], first: int) -> str:
    """A multi-row display's first row (``\\displaystyle`` tokens before a stretch of garbled text in the
    same segment), followed by a space; ``""`` when there is none."""
    row: list[str] = []
    for start, tok in toks:
        if start >= first:
            break
        if tok.startswith("\\displaystyle") and _looks_latex(tok) and not row:
            row.append(tok)
        elif row and _looks_latex(tok):
            row.append(tok)
        elif row:
            break
    return " ".join(row) + " " if row else ""


def _find_bare(text: str, skip: list[tuple[int, int]]) -> list[Display]:
    out: list[Display] = []
    seg_start = 0
    prev = ""
    for m in _BARE.finditer(text):
        if any(a <= m.start() < b for a, b in skip):
            continue
        segment = text[seg_start:m.start()]
        toks = _tokens_before(segment)
        run = []
        for k in range(len(toks) - 1, -1, -1):
            start, tok = toks[k]
            left = toks[k - 1][1] if k > 0 else ""
            after_word = tok.isascii() and _looks_latex(left) and re.search(r"\\[A-Za-z]+$", left)  # "\leq mn"
            operator = tok in ("=", "+", "-", "<", ">", "&=") and _looks_latex(left)             # "L(x) = ..."
            if not (_looks_latex(tok) or after_word or operator):
                break
            run.append((start, tok))
        if not run:
            continue
        run.reverse()
        latex = " ".join(t for _, t in run)
        if latex.startswith("\\displaystyle") and _starts_with_relation(latex):
            latex = _first_row(toks, run[0][0]) + latex
        cont = prev if prev and _starts_with_relation(latex) else ""
        out.append(Display(m.group(1), strip_wrappers(latex), _line_of(text, m.start()), "", cont))
        prev = strip_wrappers(latex)
        seg_start = m.end()
    return out


# ----------------------------------------------------------------------------------------------------
# numbers cited in prose
# ----------------------------------------------------------------------------------------------------
_AND = r"(?:\s*(?:[-–]|and|to)\s*\(\s*(" + _NUM + r")\s*\))?"
_CITE_EQ = re.compile(r"\b[Ee]qs?\.\s*\(?\s*(" + _NUM + r")\b\s*\)?" + _AND)
_CITE_WORD = re.compile(r"\b(?:[Ee]quations?|[Ii]dentity|[Cc]onditions?)\s*\(\s*(" + _NUM + r")\s*\)" + _AND)
_CITE_RANGE = re.compile(r"\((" + _NUM + r")\)\s*[-–]\s*\((" + _NUM + r")\)")
_CITE_APPX = re.compile(r"(?<![\w$\\])\(([A-Z]\.?\d{1,3})\)")
_CITE_NOUN = re.compile(r"\b([a-z]{3,})\s+\((\d{1,3})\)(?![\w(])")
_NOT_NOUNS = {"part", "parts", "item", "items", "step", "steps", "case", "cases", "and", "the", "see", "are",
              "was", "were", "for", "from", "with", "that", "this", "than", "then", "point", "points",
              "page", "pages", "chapter", "year", "years", "line", "lines", "row", "rows", "column", "columns",
              "statement", "statements", "claim", "claims", "assumption", "assumptions", "property", "version",
              "comment", "comments", "reference", "references", "revision", "revisions", "objections"}
_NOT_EQ = re.compile(r"(?:Lemma|Theorem|Corollary|Proposition|Definition|Remark|Section|Appendix|Figure|Table|Fig)\.?\s*$")


def _expand(a: str, b: str | None) -> list[str]:
    if not b:
        return [a]
    if a.isdigit() and b.isdigit() and 0 <= int(b) - int(a) <= 20:
        return [str(k) for k in range(int(a), int(b) + 1)]
    return [a, b]


def _find_cited(text: str, skip: list[tuple[int, int]]) -> list[Display]:
    found: dict[str, int] = {}
    for rx in (_CITE_EQ, _CITE_WORD, _CITE_RANGE, _CITE_APPX):
        for m in rx.finditer(text):
            if any(a <= m.start() < b for a, b in skip) or _NOT_EQ.search(text[max(0, m.start() - 14):m.start()]):
                continue
            second = m.group(2) if m.re.groups >= 2 else None
            for n in _expand(m.group(1), second):
                found.setdefault(n, _line_of(text, m.start()))
    for m in _CITE_NOUN.finditer(text):
        if m.group(1) not in _NOT_NOUNS and not any(a <= m.start() < b for a, b in skip):
            found.setdefault(m.group(2), _line_of(text, m.start(2)))
    return [Display(n, "", line, cited=True) for n, line in found.items()]


# ----------------------------------------------------------------------------------------------------
# entry points
# ----------------------------------------------------------------------------------------------------
def find_displays(text: str, fmt: str) -> list[Display]:
    """The numbered displays of ``text`` in reading order, then cited numbers without a display.

    ``fmt`` is one of :data:`FORMATS`.  A number displayed twice (a restated equation) gives two
    displays.  Raises InvalidArgument for an unknown ``fmt``.
    """
    if fmt not in FORMATS:
        raise InvalidArgument(f"fmt={fmt!r} must be one of {', '.join(FORMATS)}")
    if fmt == "tex":
        displays = _find_tex(text)
        skip = [(m.start(), m.end()) for m in _ENV_RE.finditer(text)]
    else:
        displays, skip = _find_dollars(text)
        if fmt == "txt":
            displays = sorted(displays + _find_bare(text, skip), key=lambda d: d.line)
    have = {d.number for d in displays}
    cited = [d for d in _find_cited(text, skip) if d.number not in have]
    return displays + sorted(cited, key=lambda d: d.line)


_SET = r"(?:\\mathbb\s*\{?R\}?|\\R\b|\\mathbf\{R\}|ℝ|\bR(?=\^|\b))"
_DECL = re.compile(r"\\in\s*" + _SET + r"(?:\s*\^\s*(\{(?:[^{}]|\{[^{}]*\})*\}|\\?[A-Za-z0-9]))?")
_ATOM = re.compile(r"^(?:\\(?:mathbf|boldsymbol|bm|tilde|hat|bar|mathcal|mathrm|vec)\s*\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z])"
                   r"(?:\s*_\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z0-9]))?(?:\s*\^\s*\{\s*\([^{}]*\)\s*\})?$")


def _dims(sup: str | None) -> tuple:
    if sup is None:
        return ()
    s = sup[1:-1] if sup.startswith("{") else sup
    parts = [p.strip() for p in re.split(r"\\times|×|\\cdot", s)]
    if len(parts) == 1:
        return () if parts[0] in ("+", ">0", "_+", "") else (parts[0], "1")
    return tuple(parts)


def find_declarations(text: str) -> list[Declaration]:
    """Shape declarations ``NAME \\in \\mathbb{R}^{a \\times b}`` in the text, in reading order.

    A name declared twice keeps every declaration (the caller takes the first).  Names are the LaTeX as
    written (``W_{i}``, ``\\tilde{u}_{i}``); a left side that is no single name (``(a, b) \\in ...``)
    declares nothing.
    """
    out = []
    for m in _DECL.finditer(text):
        before = text[max(0, m.start() - 200):m.start()]
        before = re.split(r"\$|\n|\\forall|\bwhere\b|\bfor\b|\bwith\b|\band\b|\\quad|:", before)[-1]
        if "=" in before:
            before = before.split("=")[0]
        shape = _dims(m.group(1))
        for name in (n.strip() for n in _split_names(before)):
            if name and _ATOM.match(name) and name not in (r"\cdots", r"\ldots", r"\dots"):
                out.append(Declaration(name, shape, _line_of(text, m.start()), text[m.start():m.end()]))
    return out


_KIND_WORDS = (("skew-symmetric", "antisymmetric"), ("antisymmetric", "antisymmetric"),
               ("symmetric positive definite", "spd"), ("symmetric positive-definite", "spd"),
               ("positive definite", "spd"), ("positive-definite", "spd"), ("symmetric", "symmetric"),
               ("orthogonal", "orthogonal"), ("diagonal", "diagonal"), ("invertible", "invertible"))
_KIND = "|".join(re.escape(w) for w, _ in _KIND_WORDS)
_MATH = r"\$([^$]{1,60})\$"
_STRUCTURE_PATTERNS = (
    # $S$ is symmetric / $A, B$ be positive definite / $Q$ is an orthogonal matrix
    re.compile(_MATH + r"\s*,?\s*(?:is|be|are)\s+(?:an?\s+|both\s+)?(" + _KIND + r")\b", re.I),
    # a symmetric matrix $S$, symmetric positive definite matrices $A, B$
    re.compile(r"\b(" + _KIND + r")\s+(?:matrix|matrices)\s+" + _MATH, re.I),
)
_SYMBOLIC = (
    (re.compile(r"\\succ\s*0(?![.\d])"), "spd"),                           # \Sigma \succ 0
    (re.compile(r"\\in\s*\\mathbb\s*\{?S\}?\s*(?:\^\s*\{?\w+\}?\s*)?_\s*\{?\s*\+\+\s*\}?"), "spd"),
    (re.compile(r"\\in\s*\\mathbb\s*\{?S\}?\s*_\s*\{?\s*\+\+\s*\}?"), "spd"),
    (re.compile(r"\\in\s*\\mathbb\s*(?:\{S\}|S)(?:\s*\^\s*(?:\{[^{}]*\}|\w)(?!\s*_)|(?!\s*[_^]))"), "symmetric"),
    (re.compile(r"\\in\s*(?:\\mathcal\s*\{?O\}?|\\mathrm\s*\{?O\}?|O)\s*\("), "orthogonal"),
    (re.compile(r"(?<![<>=\\])>\s*0(?![.\d])"), "positive"),                  # \lambda > 0
)


def find_structures(text: str) -> list[Declaration]:
    """Structure declarations in the text's prose and formulas, in reading order: ``\\Sigma \\succ 0`` (spd),
    ``S \\in \\mathbb{S}^n_{++}`` (spd), ``\\mathbb{S}^n`` (symmetric), ``Q \\in O(n)`` (orthogonal),
    ``\\lambda > 0`` (positive), "``$S$`` is symmetric", "a positive definite matrix ``$A$``", ... (helper-44: a
    paper's ``\\nabla_\\Sigma \\log\\det \\Sigma = \\Sigma^{-1}`` with "``\\Sigma \\succ 0``" in its text was
    REFUTED by ``scan --run``).  Each is a :class:`Declaration` with ``structure`` set and ``shape`` ``()`` (or
    ``(n, n)`` for ``\\mathbb{S}^n``, ``O(n)``); the caller keeps one whose name has a shape that fits (square for a matrix kind, a scalar for
    ``positive``)."""
    out = []
    for pat in _STRUCTURE_PATTERNS:
        for m in pat.finditer(text):
            math, word = (m.group(1), m.group(2)) if pat is _STRUCTURE_PATTERNS[0] else (m.group(2), m.group(1))
            kind = next(k for w, k in _KIND_WORDS if w == word.lower())
            for name in _split_names(re.split(r"\\in\b", math)[0]):
                if _ATOM.match(name.strip()):
                    out.append(Declaration(name.strip(), (), _line_of(text, m.start()), m.group(0), kind))
    for pat, kind in _SYMBOLIC:
        for m in pat.finditer(text):
            after = text[m.start():m.end() + 24]
            size = re.search(r"\\mathbb\s*(?:\{S\}|S)\s*(?:_\s*\{?\s*\+\+\s*\}?\s*)?\^\s*(\{[^{}]*\}|\w)", after) \
                or re.search(r"O\s*\}?\s*\(\s*([A-Za-z0-9_{}\\]+)\s*\)", after)
            n = size.group(1).strip("{} ") if size else ""
            shape = (n, n) if n else ()
            before = text[max(0, m.start() - 120):m.start()]
            before = re.split(r"\$|\n|\\forall|\bwhere\b|\bfor\b|\bwith\b|\band\b|\\quad|:|=|\\in\b", before)[-1]
            for name in _split_names(before):
                if _ATOM.match(name.strip()):
                    out.append(Declaration(name.strip(), shape, _line_of(text, m.start()), m.group(0), kind))
    return sorted(dict.fromkeys(out), key=lambda d: d.line)


def _split_names(s: str) -> list[str]:
    """``a, b_{i,j}, c`` -> names (commas inside braces do not split)."""
    parts, depth, cur = [], 0, ""
    for c in s.strip():
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += c == "{"
        depth -= c == "}"
        cur += c
    parts.append(cur)
    return [p for p in parts if p.strip()] if len(parts) > 1 or parts[0].strip() else []
