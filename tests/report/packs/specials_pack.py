"""A test pack whose texts are full of LaTeX specials (paper key ``specials``).

Titles, assumptions, names, notes, justifications and statements contain ``_ ^ & % # { } \\ ~ $``;
the report must escape or sanitise all of them and still compile.
"""

import sympy as sp

import theorem_check as tc

dims = tc.DimSpace({"n": (1, 3)})


def sample(rng, d, batch):
    return {"x": rng.standard_normal((batch, d["n"]))}


def derivation():
    x = sp.Symbol("x_1^2 & 50% #{odd}")      # a symbol whose name is full of specials
    y = sp.Symbol("y")
    return tc.Derivation([tc.Step((x + y) ** 2, x ** 2 + 2 * x * y + y ** 2, r"expand: 100% of {cases} & #1 \o/ ~x_y^z")])


nice = tc.Statement(r"a_{1}^{2} & 50% # \{x\} \alpha = \tr(x) \norm{x}", dims=dims, sample=sample,
                    lhs=lambda inst, ctx: inst.x * 2, rhs=lambda inst, ctx: inst.x + inst.x, derivation=derivation,
                    note=r"Note: 100% & #hash {brace} $\backslash$ ~tilde ^caret _under $x_1$ $5 costs")
tc.register(tc.Claim(
    id="specials.title_and_statement", title=r"Specials _ ^ & % # { } \ ~ in a title, and $x_i^2$ math",
    source=tc.Source("specials", "1_a & b", "(2%)#", r"a_{1}^{2} & 50% # \{x\} \alpha = \tr(x) \norm{x}"),
    statement=nice, controls=(tc.double(nice),),
    assumptions=(r"x_i ^ 2 & 100% # {x} $\alpha$", "[bracket] first, <angle> | bar", "unicode: α ≤ β → ∞, naïve"),
    aliases=("specials_alias",),
))

broken = tc.Statement(r"\frac{a}{b & {unbalanced % comment \end{document} \def\x{y} x^", name="as printed: {weird} & name",
                      dims=dims, sample=sample, lhs=lambda inst, ctx: inst.x, rhs=lambda inst, ctx: -inst.x)
tc.register(tc.Claim(
    id="specials.broken_latex", title=r"Broken LaTeX $\end{document} \input{x}$ %",
    source=tc.Source("specials", "2", "(3)", r"\left( x_1 \end{document} ^^M \verb|x| $$ a^b^c"),
    statement=broken, controls=(tc.double(broken),),
    variants=(tc.Statement(r"x = x \quad\text{(fixed) with 100% & _}", name="corrected & fixed_", kind="corrected",
                           dims=dims, sample=sample, lhs=lambda inst, ctx: inst.x, rhs=lambda inst, ctx: inst.x),),
))
