"""Engine and claim text (evidence, details, notes) typeset for LaTeX: the maths in it as maths.

Evidence strings are written for the terminal: ``E[grad_W2 grad_W2^T] is 1x1``, ``T = e_j e_j^T``,
``dC_B/dt``, ``eps*size*cond``, ``||lhs - rhs||/||.||``, ``float32 5.7e-01 -> float64 3.6e-08``,
``predicted array(50,)``.  :func:`prose` turns such a string into LaTeX that prints it as a paper
would:

* ``$...$`` spans stay inline maths (sanitised by :func:`theorem_check.output.tex.math`);
* Python dict reprs become ``n = 2, D = 3`` (:func:`theorem_check.output.latex.prose_dicts`) and
  a shape summary ``array(50,)`` becomes "50 values";
* a run of plain-text maths (a word with ``_``, ``^``, ``*`` between names, ``|``, ``dX/dt``,
  ``key=value``, ``2x3``, a Greek letter's name, joined by ``=``, ``+``, ``-`` ...) becomes inline
  maths: subscripts, ``^T`` as :math:`^\\top`, Greek names as letters, ``E[`` as
  :math:`\\mathbb{E}[`, ``Tr`` as an operator, ``*`` as a product (or a star after a name);
  a run that does not sanitise is shown in typewriter type instead, so the document always compiles;
* every number in e-notation is printed in one format, the residual format of the report's
  tables (:func:`theorem_check.output.tex.fmt_sci`: ``3.7e-01`` -> 0.37, ``1.2e-14`` ->
  :math:`1.2\\times10^{-14}`), with the digits it was written with; ``->`` is an arrow, ``+-`` a
  :math:`\\pm`.

Source: issue 23 (evidence text not typeset in ``report --pdf``).

>>> prose("T = e_j e_j^T: residual 3.7e-01 -> 1.2e-14")
'$T = e_{j} e_{j}^{\\\\top}$: residual $0.37$ $\\\\to$ $1.2\\\\times 10^{-14}$'
"""

from __future__ import annotations

import re

from theorem_check.output.latex import prose_dicts
from theorem_check.output.tex import Tex, escape, fmt_sci, math, text

__all__ = ["prose", "plain_math", "sci_number", "GREEK_NAMES"]

GREEK_NAMES = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi chi psi "
    "omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega".split())
"""Names written out in engine text (``theta``, ``Sigma``) that :func:`prose` prints as the letter."""
_ALIASES = {"eps": r"\varepsilon", "lam": r"\lambda", "epsilon": r"\varepsilon", "grad": r"\nabla",
            "Tr": r"\operatorname{Tr}", "tr": r"\operatorname{tr}", "diag": r"\operatorname{diag}",
            "Hess": r"\operatorname{Hess}", "sgn": r"\operatorname{sgn}", "exp": r"\exp", "log": r"\log",
            "max": r"\max", "min": r"\min", "inf": r"\infty"}
_SCI = re.compile(r"(?<![\w.])([+-]?\d+(?:\.\d+)?)e([+-]?\d+)(?![\w.])")
_ARRAY = re.compile(r"\barray\(((?:\d+, )*\d+),?\)")
_SPLIT_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")
_MATH_TOKEN = re.compile(r"\|\||->|\+-|<=|>=|!=|(?<=\d)x(?=\d)|\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z]+\d*|\s+|.")
_DERIV = re.compile(r"\bd([A-Za-z][\w^]*)/d([A-Za-z]\w*)")   # dC_B/dt: the d's are marked before tokenizing
_OPS = frozenset({"=", "+", "-", "<", ">", "<=", ">=", "->", "~", "x", "/", "*", "==", "!="})
_TRAIL = ",;:."


def sci_number(tok: str) -> str:
    """A number in e-notation (``3.7e-01``) as report maths, with the digits it was written with."""
    mant, _, _exp = tok.lower().partition("e")
    digits = len(mant.split(".", 1)[1]) if "." in mant else 0
    return fmt_sci(float(tok), max(digits, 0))


def _script(toks: list[str], i: int) -> tuple[str, int]:
    """The argument of ``^``/``_`` at ``toks[i]``: a braced group, ``-1``, a name or a number."""
    if i >= len(toks):
        return "{}", i
    t = toks[i]
    if t == "{":
        depth, j, buf = 0, i, []
        while j < len(toks):
            depth += toks[j] == "{"
            depth -= toks[j] == "}"
            if depth == 0:
                return "{" + _convert(buf[1:]) + "}", j + 1
            buf.append(toks[j])
            j += 1
        return "{" + _convert(buf[1:]) + "}", j
    if t == "-" and i + 1 < len(toks) and re.fullmatch(r"\d+|[A-Za-z]", toks[i + 1]):
        return "{-" + toks[i + 1] + "}", i + 2
    if t == "T":
        return r"{\top}", i + 1
    return "{" + _name(t) + "}", i + 1


def _name(t: str) -> str:
    """A name of plain-text maths as LaTeX: Greek letters, operators, ``W2`` -> ``W_{2}``."""
    if t in GREEK_NAMES:
        return "\\" + t
    if t in _ALIASES:
        return _ALIASES[t]
    m = re.fullmatch(r"([A-Za-z])(\d+)", t)
    if m:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    m = re.fullmatch(r"([A-Za-z]+)(\d*)", t)
    if m and m.group(1) in GREEK_NAMES:
        return "\\" + m.group(1) + (f"_{{{m.group(2)}}}" if m.group(2) else "")
    if len(t) == 1 or not t[:1].isalpha():
        return t
    return rf"\mathrm{{{t}}}"


def _convert(toks: list[str]) -> str:
    out: list[str] = []
    i = 0
    prev = ""
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        i += 1
        if t.isspace():
            out.append(" ")
            continue
        if t in "^_":
            arg, i = _script(toks, i)
            out.append(t + arg)
        elif t == "*":
            # a star after a name and before nothing name-like is a decoration (theta*, Q*, lambda*=)
            out.append("^{*}" if prev and (prev[-1:].isalnum() or prev == "}") and not nxt[:1].isalnum()
                       else r" \cdot ")
        elif t == "||":
            out.append(r"\Vert ")
        elif t == "|":
            out.append(r"\vert ")
        elif t in ("->", "+-", "<=", ">=", "!="):
            out.append({"->": r"\to ", "+-": r"\pm ", "<=": r"\le ", ">=": r"\ge ", "!=": r"\ne "}[t])
        elif t == "." and prev in (r"\Vert ", r"\vert ", "("):
            out.append(r"\cdot ")
        elif t == "x" and re.fullmatch(r"\d+", prev or "") and re.fullmatch(r"\d+", nxt or ""):
            out.append(r"\times ")
        elif t == "\x00":
            out.append(r"\mathrm{d}")
        elif t == "E" and nxt == "[":
            out.append(r"\mathbb{E}")
        elif re.fullmatch(r"[+-]?\d+(?:\.\d+)?e[+-]?\d+", t):
            out.append(sci_number(t))
        elif t[:1].isalpha():
            out.append(_name(t))
            if t in _ALIASES and _ALIASES[t].startswith(r"\operatorname") and nxt.isalpha():
                out.append(" ")
        else:
            out.append(t)
        prev = out[-1] if not t.isspace() else prev
        if t.isalpha() and out[-1].startswith("\\") and out[-1][1:].isalpha() and nxt[:1].isalpha():
            out.append(" ")
    return "".join(out)


def plain_math(src: str) -> Tex:
    """Plain-text maths (``e_j e_j^T``, ``||x||``, ``dC_B/dt``) as inline LaTeX maths, or typewriter text
    when it cannot be made to compile."""
    toks = _MATH_TOKEN.findall(_DERIV.sub("\x00\\1/\x00\\2", src))
    m = math(_convert(toks))
    if m.ok and r"\begin{aligned}" not in m.tex:
        return Tex(f"${m.tex}$")
    return Tex(r"\texttt{" + escape(src) + "}")


_MATHY = re.compile(r"""
    [A-Za-z\d\]\)}]_[\w{]            # a subscript
  | [\w\]\)}]\^[\w{(-]                # a superscript
  | [A-Za-z\d)]\*[A-Za-z(]            # a product of names
  | [A-Za-z]\d*\*(?![\w(])            # a starred name (theta*)
  | \|                                # norms, absolute values
  | ^d[A-Za-z]\w*/d[A-Za-z]           # a derivative dC/dt
  | ^\d+x\d+(?:x\d+)*$                # a size 2x3
  | ^E\[                              # an expectation
  | ^[A-Za-z][A-Za-z]?\d*=\S          # a short key=value (n=3, gamma=0.3 below)
""", re.X)


def _words(s: str) -> list[str]:
    """Split on spaces outside ``[...]`` and ``|...|`` (``E[grad_W2 grad_W2^T]`` is one word); a ``|`` with a space on
    each side is a separator, a word of its own, never a bar (``dims n=3 | n=1 | n=2``: the bars paired across the
    separators and set the rest of the sentence as maths, helper-56)."""
    words, buf, depth, bars = [], "", 0, 0
    for k, ch in enumerate(s):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "|" and not bars and 0 < k < len(s) - 1 and s[k - 1] == " " and s[k + 1] == " " and depth == 0:
            if buf:
                words.append(buf)
            words.append("|")
            buf = ""
            continue
        elif ch == "|":
            bars ^= 1
        if ch.isspace() and depth == 0 and not bars:
            if buf:
                words.append(buf)
            buf = ""
            continue
        buf += ch
    if buf:
        words.append(buf)
    return words


def _is_mathy(w: str) -> bool:
    core = w.strip(_TRAIL + "()")
    if not core or "://" in core or core.startswith("-"):
        return False
    if core in GREEK_NAMES or re.fullmatch(r"(?:%s)\d*\*?" % "|".join(GREEK_NAMES), core):
        return True
    key = re.fullmatch(r"([A-Za-z_]\w*)=(\S+)", core)
    if key:
        return key.group(1) in GREEK_NAMES or len(key.group(1)) <= 3 or "_" in key.group(1)
    return _MATHY.search(core) is not None


def _split_punct(w: str) -> tuple[str, str, str]:
    """Leading ``(`` and trailing ``,;:.)`` that belong to the sentence, not to the maths."""
    lead = ""
    while w[:1] == "(" and w.count("(") > w.count(")"):
        lead, w = lead + "(", w[1:]
    tail = ""
    while w and (w[-1] in _TRAIL or (w[-1] == ")" and w.count(")") > w.count("("))):
        tail, w = w[-1] + tail, w[:-1]
    return lead, w, tail


def _plain(s: str) -> Tex:
    words = _words(s)
    out: list[str] = []
    k = 0
    while k < len(words):
        w = words[k]
        lead, core, tail = _split_punct(w)
        short_lhs = (re.fullmatch(r"[A-Za-z](?:_\w+)?\d*", core) is not None and not tail and k + 2 < len(words)
                     and words[k + 1] in ("=", "<", ">", "<=", ">=") and _is_mathy(words[k + 2]))
        if w != "|" and (_is_mathy(w) or short_lhs):
            run = [core]
            end_tail = tail
            j = k + 1
            while not end_tail and j < len(words):
                nxt = words[j]
                if nxt in _OPS - {"x", "/"} and j + 1 < len(words):
                    l2, c2, t2 = _split_punct(words[j + 1])
                    if not l2 and (_is_mathy(words[j + 1]) or re.fullmatch(r"[\w.+-]+", c2)):
                        run += [nxt, c2]
                        end_tail = t2
                        j += 2
                        continue
                l2, c2, t2 = _split_punct(nxt)
                if "=" in c2 or "=" in run[-1]:   # n=3 D=4: separate statements, separate spans
                    break
                if not l2 and (_is_mathy(nxt) or (len(c2) == 1 and c2.isalpha() and not t2 and j + 1 < len(words)
                                                  and _is_mathy(words[j + 1]))):
                    run.append(c2)
                    end_tail = t2
                    j += 1
                    continue
                break
            out.append(escape(lead) + plain_math(" ".join(run)) + escape(end_tail))
            k = j
            continue
        out.append(_plain_word(w))
        k += 1
    return Tex(" ".join(out))


def _plain_word(w: str) -> str:
    if w == "|":
        return r"\textbar{}"
    if w == "->":
        return r"$\to$"
    if w == "+-":
        return r"$\pm$"
    parts = _SCI.split(w)
    if len(parts) == 1:
        return escape(w)
    out = []
    for k in range(0, len(parts) - 1, 3):
        out.append(escape(parts[k]) + f"${sci_number(parts[k + 1] + 'e' + parts[k + 2])}$")
    out.append(escape(parts[-1]))
    return "".join(out)


def _arrays(s: str) -> str:
    def one(m: re.Match) -> str:
        dims = [int(x) for x in m.group(1).split(", ")]
        return f"{dims[0]} values" if len(dims) == 1 else "an array of size " + "x".join(map(str, dims))

    return _ARRAY.sub(one, s)


def prose(src: str) -> Tex:
    """Engine or claim text -> LaTeX with its maths typeset (see the module docstring); never fails to compile."""
    s = _arrays(prose_dicts(str(src)))
    s = re.sub(r"\s+", " ", s).strip()
    parts = _SPLIT_MATH.split(s)
    out = []
    for k, part in enumerate(parts):
        if k % 2:
            out.append(text("$" + part + "$"))
        elif part:
            lead = " " if part[:1] == " " and k else ""
            trail = " " if part[-1:] == " " and k + 1 < len(parts) else ""
            out.append(lead + _plain(part) + trail)
    return Tex("".join(out))
