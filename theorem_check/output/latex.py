"""LaTeX and Markdown of claims and results: claim blocks, derivation steps, long displays broken to the
page width, evidence prose, Markdown mathematics.

The safe-LaTeX primitives (escaping, math sanitising, macros) are :mod:`theorem_check.output.tex`; the
printing of SymPy expressions is :mod:`theorem_check.expr.printing`.  Both are re-exported here, so
``theorem_check.output.latex.SYMBOL_NAMES`` and ``theorem_check.output.latex.math`` keep working.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from theorem_check.expr.printing import SYMBOL_NAMES, expr_latex, retex, symbol_latex, sympy_latex
from theorem_check.output.tex import (
    BREAK_TOKEN,
    MACRO_ARGS,
    MACRO_MEANINGS,
    MATH_ENVS,
    MathTex,
    Tex,
    control_words,
    display,
    escape,
    fmt_sci,
    math,
    provide_macros,
    text,
    text_control_words,
    top_level_tokens,
)

if TYPE_CHECKING:  # no runtime import: claims imports latex lazily for _repr_latex_
    from theorem_check.model.claims import Claim

__all__ = ["Tex", "MathTex", "escape", "text", "math", "display", "fmt_sci", "control_words", "provide_macros",
           "claim_latex", "MATH_ENVS", "SYMBOL_NAMES", "symbol_latex", "sympy_latex", "expr_latex", "retex", "dims_text",
           "prose_dicts", "math_width", "break_math", "md_math", "md_text", "statement_title", "claim_words",
           "step_math", "display_step", "matrix_entries", "text_control_words"]


def claim_words(claim: Claim) -> set[str]:
    """Every control word a claim's math and ``$...$`` prose uses (for :func:`provide_macros`)."""
    words = control_words(claim.source.printed)
    for st in (*claim.statements(), *claim.controls):
        words |= control_words(st.latex) | text_control_words(st.note) | text_control_words(st.name)
    for s in (claim.title, *claim.assumptions):
        words |= text_control_words(s)
    return words


def claim_latex(claim: Claim, *, derivations: bool = True) -> str:
    """A self-contained LaTeX block for ``claim`` (``theorem-check show ID --latex``, notebooks).

    Needs only ``amsmath`` and ``amssymb``: macros the statements use that may be undefined are
    provided first (``\\providecommand``).  With ``derivations=True`` the SymPy derivation of each
    statement is listed step by step (printed by SymPy's LaTeX printer, not checked here: run
    ``theorem-check report`` for checked steps).
    """

    s = claim.source
    steps_by_stmt = []
    words = claim_words(claim)
    if derivations:
        for st in claim.statements():
            d = st.derivation() if st.derivation is not None else None
            if d is None:
                continue
            rows = [(sympy_latex(step.lhs), sympy_latex(step.rhs), step.why) for step in d.steps]
            for lhs, rhs, _ in rows:
                words |= control_words(lhs) | control_words(rhs)
            steps_by_stmt.append((st, d, rows))
    lines = []
    macros = provide_macros(words)
    if macros:
        lines += ["% macros the statements use, defined only where missing", macros]
    lines += [rf"\paragraph{{\texttt{{{escape(claim.id)}}}: {text(claim.title)}}}",
              rf"Source: {escape(s.paper)}, Section~{escape(s.section)}, {escape(s.equation)}. As printed:",
              display(s.printed)]
    if claim.assumptions:
        lines.append(r"Assumptions:")
        lines.append(r"\begin{itemize}")
        lines += [rf"\item {text(a)}" for a in claim.assumptions]
        lines.append(r"\end{itemize}")
    for v in claim.variants:
        lines += [rf"\noindent {escape(v.kind.capitalize())} ({text(v.name)}):", display(v.latex)]
        if v.note:
            lines.append(rf"\noindent{{\small {text(v.note)}}}")
    for st, d, rows in steps_by_stmt:
        scope = "valid for every size" if d.general else f"explicit matrices at fixed sizes {d.sizes}"
        lines.append(rf"\noindent Derivation of the statement {text(st.name)} ({text(scope)}):")
        lines.append(r"\begin{enumerate}")
        for lhs, rhs, why in rows:
            lines.append(rf"\item {text(why) if why else ''}" + "\n" + display_step(lhs, rhs))
        lines.append(r"\end{enumerate}")
    return "\n".join(lines)


def step_math(lhs: str, rhs: str, *, wrap: int = 110) -> MathTex:
    """``lhs = rhs`` as one sanitised math string (two lines in ``aligned`` when long)."""
    ml, mr = math(lhs), math(rhs)
    if not (ml.ok and mr.ok):
        bad = ml if not ml.ok else mr
        return MathTex(Tex(r"\texttt{" + escape(lhs) + "} = " + r"\texttt{" + escape(rhs) + "}"), False, bad.reason)
    if len(lhs) + len(rhs) > wrap:
        return MathTex(Tex(rf"\begin{{aligned}}&{{}}{ml.tex}\\&\quad= {mr.tex}\end{{aligned}}"), True)
    return MathTex(Tex(f"{ml.tex} = {mr.tex}"), True)


def display_step(lhs: str, rhs: str) -> Tex:
    """A display of the derivation step ``lhs = rhs`` (see :func:`step_math`)."""
    m = step_math(lhs, rhs)
    if m.ok:
        return Tex("\\begin{equation*}\n" + m.tex + "\n\\end{equation*}")
    return Tex(r"\begin{quote}" + m.tex + r"\\ {\small(shown verbatim: " + escape(m.reason) + r")}\end{quote}")



def dims_text(dims) -> str:
    """``{"n": 2, "D": 3}`` -> ``"n = 2, D = 3"`` (``"none"`` when empty)."""
    return ", ".join(f"{k} = {v}" for k, v in dict(dims).items()) or "none"


_DICT_RE = re.compile(r"\{('[^'{}]+': [^,{}]+(?:, '[^'{}]+': [^,{}]+)*)\}")


def prose_dicts(s: str) -> str:
    """Python dict reprs inside engine text (``dims {'n': 2, 'D': 3}``) -> ``n = 2, D = 3``."""
    def one(m: re.Match) -> str:
        return ", ".join(f"{k.strip()[1:-1]} = {v.strip()}" for k, v in
                         (item.split(":", 1) for item in re.split(r", (?=')", m.group(1))))

    return _DICT_RE.sub(one, str(s))


# -- long displays ---------------------------------------------------------------------------



def math_width(tex: str) -> float:
    """Rough typeset width of math in units of one average glyph (for line breaking, not layout).

    Commands count as one glyph (``\\alpha``) or nothing (``\\left``, ``\\mathrm``, spacing);
    sub/superscripts count 0.7.
    """
    zero = {"left", "right", "mathrm", "operatorname", "mathbf", "mathit", "boldsymbol", "begin", "end", "bigl",
            "bigr", "Bigl", "Bigr", "displaystyle", "limits", "text", "mathcal", "mathbb", "quad", "qquad"}
    w, script, depth_script = 0.0, 0, []
    toks = BREAK_TOKEN.findall(tex)
    i = 0
    depth = 0
    while i < len(toks):
        t = toks[i]
        i += 1
        if t in "^_":
            depth_script.append(depth)
            script += 1
            if i < len(toks) and toks[i] != "{":
                w += 0.7
                i += 1
                script -= 1
                depth_script.pop()
            continue
        if t == "{":
            depth += 1
            continue
        if t == "}":
            depth -= 1
            if depth_script and depth_script[-1] == depth:
                depth_script.pop()
                script -= 1
            continue
        if t.isspace():
            continue
        if t.startswith("\\") and len(t) > 2:
            if t[1:] in zero:
                continue
            if t[1:] == "frac":
                w += 0.5
                continue
        k = 0.7 if script else 1.0
        if t in "=+-<>" or t in (r"\le", r"\ge", r"\cdot", r"\times", r"\to"):
            k *= 1.8
        w += k
    return w


def _split_points(toks: list[str]) -> list[int]:
    """Token indexes where a display may break: before a top-level relation, ``+`` or ``-``."""
    points = []
    prev = ""
    for k, t, top in top_level_tokens(toks):
        if top and k > 0 and prev in (";", ",", ":") and t in (r"\ ", r"\quad", r"\qquad", r"\;"):
            points.append(k + 1)
        elif top and k > 0 and (
                t in ("+", "-", "=", "<", ">", r"\le", r"\ge", r"\approx", r"\quad") or t.startswith(r"\text")):
            if prev not in ("", "(", "[", "{", "=", "+", "-", "^", "_", "&", r"\left"):
                points.append(k)
        if not t.isspace():
            prev = t
    return points


def _top_split(tex: str, sep: str) -> list[str]:
    """Split at top-level occurrences of ``sep`` (``\\\\`` or ``&``), outside braces and nested environments."""
    parts, cur = [], []
    for _, t, top in top_level_tokens(BREAK_TOKEN.findall(tex)):
        if t == sep and top:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(t)
    parts.append("".join(cur))
    return parts


def _break_rows(body: str, budget: float) -> str:
    """Break each row of an ``aligned`` body that is wider than ``budget``."""
    rows = _top_split(body, "\\\\")
    out = []
    for row in rows:
        if math_width(row) <= budget:
            out.append(row)
            continue
        cells = _top_split(row, "&")
        if len(cells) > 2:
            out.append(row)
            continue
        head = cells[0] + "&" if len(cells) == 2 else "&"
        broken = break_math(cells[-1].strip().removeprefix("{}"), budget - math_width(cells[0]))
        if broken.startswith(r"\begin{aligned}&"):
            lines = broken[len(r"\begin{aligned}&"):-len(r"\end{aligned}")].split("\\\\&")
            out.append(head + lines[0] + "".join("\\\\&" + ln for ln in lines[1:]))
        else:
            out.append(row)
    return "\\\\".join(out)


_MATRIX = re.compile(r"^\\left\[\\begin\{matrix\}(?:\{\})?(.*)\\end\{matrix\}\\right\]$", re.S)


def matrix_entries(tex: str) -> list[list[str]] | None:
    """Entries of a SymPy-printed explicit matrix ``\\left[\\begin{matrix}...\\end{matrix}\\right]`` (else None)."""
    m = _MATRIX.match(tex.strip())
    if not m or r"\begin{matrix}" in m.group(1):
        return None
    return [[c.strip().removeprefix("{}").strip() for c in _top_split(r, "&")]
            for r in _top_split(m.group(1), "\\\\")]


def break_math(tex: str, budget: float = 72.0) -> str:
    """Break one long line of sanitised math into ``aligned`` lines of about ``budget`` glyphs.

    Breaks before top-level ``=``, ``+``, ``-`` (never inside braces); when no such point is
    left, ``\\left``/``\\right`` pairs become ``\\bigl``/``\\bigr`` so that their insides can
    break too.  Math that already has alignment (``&``, ``\\\\``) or fits is returned unchanged.
    """
    if math_width(tex) <= budget:
        return tex
    if tex.startswith(r"\begin{aligned}") and tex.endswith(r"\end{aligned}") and \
            tex.count(r"\begin{aligned}") == 1:
        body = tex[len(r"\begin{aligned}"):-len(r"\end{aligned}")]
        return r"\begin{aligned}" + _break_rows(body, budget) + r"\end{aligned}"
    if len(_top_split(tex, "\\\\")) > 1 or len(_top_split(tex, "&")) > 1:
        return tex
    for attempt in range(2):
        toks = BREAK_TOKEN.findall(tex)
        points = _split_points(toks)
        lines, start = [], 0
        last_ok = None
        for p in points + [len(toks)]:
            if math_width("".join(toks[start:p])) > budget and last_ok is not None and last_ok > start:
                lines.append("".join(toks[start:last_ok]))
                start = last_ok
            last_ok = p
        lines.append("".join(toks[start:]))
        too_long = any(math_width(ln) > budget * 1.15 for ln in lines)
        if not too_long or attempt == 1 or r"\left" not in tex:
            break
        tex = re.sub(r"\\left(?=[(\[|.]|\\\{|\\lVert|\\lvert|\\langle)", r"\\bigl", tex)
        tex = re.sub(r"\\right(?=[)\]|.]|\\\}|\\rVert|\\rvert|\\rangle)", r"\\bigr", tex)
        tex = tex.replace(r"\bigl.", "").replace(r"\bigr.", "")
    if len(lines) == 1:
        return tex
    def tidy(ln: str) -> str:
        ln = ln.strip()
        return ln + " " if ln.endswith("\\") else ln       # keep a control space (``\ ``) at the end

    out = [tidy(lines[0])] + [r"\quad " + tidy(ln) for ln in lines[1:]]
    return r"\begin{aligned}&" + r"\\&".join(out) + r"\end{aligned}"



# -- Markdown (OpenReview, GitHub: MathJax / KaTeX) -------------------------------------------

_MD_SPECIALS = re.compile(r"([\\`*_\[\]<|])")


def _expand_macros(tex: str) -> str:
    """Replace the paper macros :func:`provide_macros` would define by their meaning (MathJax knows none)."""
    def arg_macro(m: re.Match) -> str:
        return m.group(0)

    for name, (k, body) in MACRO_ARGS.items():
        pat = re.compile(r"\\" + name + r"(?![A-Za-z])" + r"\s*\{((?:[^{}]|\{[^{}]*\})*)\}" * k)
        tex = pat.sub(lambda m, b=body: re.sub(r"#(\d)", lambda g: m.group(int(g.group(1))), b), tex)
    for name, body in MACRO_MEANINGS.items():
        tex = re.sub(r"\\" + name + r"(?![A-Za-z])", lambda _m, b=body: b + " ", tex)
    return re.sub(r"\\operatorname\*", r"\\operatorname", tex)


def md_math(src: str) -> str | None:
    """Math for Markdown (``$...$``/``$$...$$`` body): sanitised, paper macros expanded; None if it cannot compile."""
    m = math(src)
    if not m.ok:
        return None
    tex = _expand_macros(m.tex)
    return " ".join(tex.split())


def md_text(src: str) -> str:
    """Plain text for Markdown: specials escaped outside ``$...$``; math spans kept (sanitised, macros expanded)."""
    s = re.sub(r"\s+", " ", str(src))
    parts = re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", s)
    out = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            out.append(_MD_SPECIALS.sub(r"\\\1", part.replace(r"\$", "$")).replace("$", r"\$"))
        else:
            tex = md_math(part)
            if tex is not None:   # '|' would split a Markdown table cell
                tex = re.sub(r"\\\|", r"\\Vert ", tex).replace("|", r"\vert ")
            out.append(f"${tex}$" if tex is not None and r"\begin{aligned}" not in tex
                       else "`" + part.replace("`", "'") + "`")
    return "".join(out)


_KIND_LABELS = {"corrected": "Corrected", "reading": "Reading", "control": "Control", "printed": "As printed"}


def statement_title(name: str, kind: str) -> str:
    """A statement's heading without doubled labels (plain text, ``$...$`` math kept).

    >>> statement_title("corrected: $W^\\top$", "corrected"), statement_title("corrected (loss (12)): x", "corrected")
    ('Corrected: $W^\\top$', 'Corrected (loss (12)): x')
    >>> statement_title("i, j over hidden layers", "reading"), statement_title("corrected", "corrected")
    ('Reading: i, j over hidden layers', 'Corrected')
    """
    s = name.strip()
    label = _KIND_LABELS.get(kind, kind.capitalize())
    for word in (kind, "corrected", "reading", "control"):
        if s.lower() == word:
            return _KIND_LABELS.get(word, label)
        if s.lower().startswith(word) and s[len(word):len(word) + 1] in (":", " ", "("):
            return _KIND_LABELS.get(word, label) + s[len(word):]
    return f"{label}: {s}"
