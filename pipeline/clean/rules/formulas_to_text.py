"""Rule ``formulas_to_text``: LaTeX formulas → readable plain text (``\\log_2 n`` → ``log2 n``)."""

from __future__ import annotations

import re

from pipeline.clean.rules.base import Work

# $$…$$, \[…\], \(…\) and $…$ (pandoc's rule: no space inside the dollars, no digit after the closing one).
FORMULA = re.compile(r"\$\$(?P<d>.+?)\$\$|\\\[(?P<b>.+?)\\\]|\\\((?P<p>.+?)\\\)"
                     r"|(?<![\\$A-Za-z0-9])\$(?=[^\s$])(?P<i>[^$\n]+?)(?<=[^\s\\])\$(?![\d$])", re.S)

SYMBOLS = {
    "times": "×", "cdot": "·", "div": "÷", "pm": "±", "mp": "∓", "ast": "*", "circ": "∘", "star": "⋆",
    "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥", "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠",
    "approx": "≈", "equiv": "≡", "sim": "∼", "propto": "∝", "ll": "≪", "gg": "≫",
    "infty": "∞", "sum": "∑", "prod": "∏", "int": "∫", "partial": "∂", "nabla": "∇",
    "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇",
    "cup": "∪", "cap": "∩", "emptyset": "∅", "varnothing": "∅", "forall": "∀", "exists": "∃",
    "neg": "¬", "lnot": "¬", "land": "∧", "wedge": "∧", "lor": "∨", "vee": "∨", "oplus": "⊕", "odot": "⊙",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "gets": "←", "leftrightarrow": "↔", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "Leftrightarrow": "⇔", "implies": "⇒", "iff": "⇔", "mapsto": "↦",
    "ldots": "…", "cdots": "⋯", "dots": "…", "vdots": "⋮", "prime": "′", "angle": "∠", "perp": "⊥",
    "parallel": "∥", "because": "∵", "therefore": "∴", "mid": "|", "vert": "|", "lvert": "|", "rvert": "|",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "langle": "⟨", "rangle": "⟩",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "phi": "φ", "varphi": "φ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Omega": "Ω",
    "bmod": " mod ", "mod": " mod ", "quad": " ", "qquad": " ", ",": " ", ";": " ", ":": " ", " ": " ",
    "!": "", "\\": "; ", "{": "{", "}": "}", "_": "_", "%": "%", "&": "&", "#": "#", "$": "$", "|": "‖",
}
FUNCTIONS = {"log", "lg", "ln", "exp", "sin", "cos", "tan", "max", "min", "lim", "sup", "inf", "gcd", "deg",
             "det", "arg", "Pr"}
TEXT = {"text", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathcal", "mathbb", "textbf", "textit",
        "operatorname", "boldsymbol", "textrm", "emph"}
DROP = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle",
        "textstyle", "limits", "nolimits", "end"}
_OPERATORS = set(" +-−×÷·/*=<>≤≥,;")


def _group(s: str, i: int) -> tuple[str, int]:
    """``s[i] == "{"``: the text up to the matching brace and the index after it."""
    depth, j = 0, i
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        if depth == 0:
            return s[i + 1:j], j + 1
        j += 1
    return s[i + 1:], len(s)


def _command(s: str, i: int) -> tuple[str, int]:
    """``s[i] == "\\\\"``: the command name (letters, or one other character) and the index after it."""
    j = i + 1
    while j < len(s) and s[j].isalpha():
        j += 1
    if j == i + 1:
        j = min(i + 2, len(s))
    return s[i + 1:j], j


def _arg(s: str, i: int) -> tuple[str, int]:
    """One argument: a ``{group}``, a ``\\command`` or a single character (spaces skipped)."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        return "", i
    if s[i] == "{":
        return _group(s, i)
    if s[i] == "\\":
        _, j = _command(s, i)
        return s[i:j], j
    return s[i], i + 1


def _wrap(t: str) -> str:
    """Parenthesise ``t`` when it has an operator or space outside parentheses."""
    depth, bare = 0, []
    for c in t:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            bare.append(c)
    return f"({t})" if len(t) > 1 and _OPERATORS & set(bare) else t


def latex_to_text(s: str) -> str:
    """Readable text for a LaTeX formula body: ``\\frac{a}{b}``→``a/b``, ``\\sqrt{n}``→``√n``,
    ``^{2}``→``^2``, ``\\log_2 n``→``log2 n``, ``\\lceil x \\rceil``→``⌈x⌉``, ``\\le``→``≤``; an unknown
    command becomes its name."""
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            name, i = _command(s, i)
            if name in ("frac", "dfrac", "tfrac"):
                a, i = _arg(s, i)
                b, i = _arg(s, i)
                out.append(f"{_wrap(latex_to_text(a))}/{_wrap(latex_to_text(b))}")
            elif name == "sqrt":
                k = ""
                if i < len(s) and s[i] == "[":
                    j = s.find("]", i)
                    k, i = (s[i + 1:j], j + 1) if j > 0 else ("", i)
                a, i = _arg(s, i)
                out.append(latex_to_text(k) + "√" + _wrap(latex_to_text(a)))
            elif name in FUNCTIONS:
                out.append(name)
                if s.startswith("_", i):
                    a, i = _arg(s, i + 1)
                    out.append(_wrap(latex_to_text(a)))
            elif name in TEXT:
                a, i = _arg(s, i)
                out.append(latex_to_text(a))
            elif name in ("overline", "bar"):
                a, i = _arg(s, i)
                t = latex_to_text(a)
                out.append("¬" + t if len(t) <= 1 else f"¬({t})")
            elif name == "begin":
                _, i = _arg(s, i)
            elif name == "pmod":
                a, i = _arg(s, i)
                out.append(f" (mod {latex_to_text(a)})")
            elif name not in DROP:
                out.append(SYMBOLS.get(name, name))
        elif c in "^_":
            a, i = _arg(s, i + 1)
            out.append(c + _wrap(latex_to_text(a)))
        elif c == "{":
            a, i = _group(s, i)
            out.append(latex_to_text(a))
        else:
            out.append({"}": "", "~": " ", "&": " "}.get(c, c))
            i += 1
    return _tidy("".join(out))


def _tidy(t: str) -> str:
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"([⌈⌊(\[⟨]) ", r"\1", t)
    return re.sub(r" ([⌉⌋)\]⟩])", r"\1", t).strip()


def convert_formulas(text: str) -> tuple[str, list[str]]:
    """``text`` with every delimited formula replaced by its readable text, and the originals."""
    originals: list[str] = []

    def repl(m: re.Match) -> str:
        originals.append(m.group(0))
        body = next(g for g in m.groups() if g is not None)
        return latex_to_text(body)

    return FORMULA.sub(repl, text), originals


def formulas_to_text(work: Work) -> None:
    """Rewrite ``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]`` formulas in text, heading and table lines
    as plain text (see ``latex_to_text``); keep the originals, once each, in the block's
    ``formulas`` (later ``Section.formulas``). Code blocks are left alone. No thresholds."""
    for b in work.blocks:
        if b.kind == "code":
            continue
        text, originals = convert_formulas("\n".join(b.lines))
        if originals:
            b.lines = [s for s in text.split("\n") if s.strip()]
            b.formulas += [f for f in dict.fromkeys(originals) if f not in b.formulas]
