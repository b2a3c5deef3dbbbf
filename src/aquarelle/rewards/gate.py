"""The gate: 1 when the painting is a legitimate p5.brush watercolour, else 0 with reasons.

It applies the published system's rules (truncated code, no setup, no WEBGL,
external access, ``text()``, bare p5 shapes, unknown brush methods, nothing
painted, under 0.5% of the canvas painted) plus our sandbox's verdict (errors,
limits, violations, calls outside the action space). Everything the model's code
caused lands here, so crashing is never a way to escape a bad score.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

MIN_COVERAGE = 0.005  # the published floor: under 0.5% of the canvas painted fails

#: p5 drawing calls that bypass p5.brush (a bare ``rect(`` is p5's, ``brush.rect(`` is ours).
BARE_P5_SHAPES = ("ellipse", "rect", "line", "triangle", "quad", "point", "arc", "circle", "square", "bezier",
                  "curve", "beginShape", "vertex", "endShape", "curveVertex", "bezierVertex", "image", "plane",
                  "box", "sphere", "torus", "cylinder", "cone")
#: Ways a sketch could reach outside the sandbox or load resources.
EXTERNAL = ("fetch", "XMLHttpRequest", "WebSocket", "EventSource", "require", "importScripts", "loadImage",
            "loadJSON", "loadStrings", "loadFont", "loadTable", "loadModel", "loadShader", "loadSound",
            "httpGet", "httpPost", "httpDo", "sendBeacon")

_BARE_RE = re.compile(r"(?<![\w.$])(" + "|".join(BARE_P5_SHAPES) + r")\s*\(")
_TEXT_RE = re.compile(r"(?<![\w.$])text\s*\(")
_EXTERNAL_RE = re.compile(r"(?<![\w.$])(" + "|".join(EXTERNAL) + r")\s*\(|\bimport\s*\(|^[^\S\n]*import\s|"
                          r"\bnew\s+(XMLHttpRequest|WebSocket|EventSource|Worker)\b|https?://", re.M)
_BRUSH_CALL_RE = re.compile(r"(?<![\w$])brush\s*\.\s*([A-Za-z_$][\w$]*)")
# a name starts at an identifier boundary: else the scan backtracks over one long identifier from each letter
_FUNC_DEF_RE = re.compile(r"function\s+([A-Za-z_$][\w$]*)\s*\(|"
                          r"(?<![\w$])([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:function|\()")


@dataclass
class GateResult:
    passed: bool
    reasons: list[str] = field(default_factory=list)
    coverage: float | None = None

    @property
    def value(self) -> float:
        return 1.0 if self.passed else 0.0


def strip_code(source: str, *, keep_strings: bool = False, drop_comments: bool = False) -> tuple[str, str | None]:
    """Source with comments and string contents blanked, plus why it looks truncated (or None).

    Truncation = an unterminated string or comment, or unbalanced brackets: the
    signature of generation that hit its token limit. ``keep_strings`` leaves string
    literals as written and ``drop_comments`` removes comments instead of blanking them
    (the length term's reading: the code a sketch really holds).
    """
    out: list[str] = []
    stack: list[str] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    i, n = 0, len(source)
    problem: str | None = None
    while i < n:
        c = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append("" if drop_comments else " " * (j - i))
            i = j
            continue
        if c == "/" and nxt == "*":
            j = source.find("*/", i + 2)
            if j < 0:
                return "".join(out), "the code ends inside a /* comment"
            out.append(" " if drop_comments else " " * (j + 2 - i))  # a comment between tokens still parts them
            i = j + 2
            continue
        if c in "'\"`":
            j = i + 1
            while j < n and source[j] != c:
                if source[j] == "\\":
                    j += 1
                elif source[j] == "\n" and c != "`":
                    break
                j += 1
            if j >= n or source[j] != c:
                return "".join(out), "the code ends inside an unterminated string"
            out.append(source[i:j + 1] if keep_strings else c + " " * (j - i - 1) + c)
            i = j + 1
            continue
        if c in "([{":
            stack.append(c)
        elif c in ")]}":
            if not stack or stack[-1] != pairs[c]:
                problem = problem or f"unbalanced '{c}'"
            else:
                stack.pop()
        out.append(c)
        i += 1
    if stack and problem is None:
        problem = f"{len(stack)} unclosed bracket(s) '{''.join(stack[-3:])}'"
    return "".join(out), (f"truncated code: {problem}" if problem else None)


def source_reasons(source: str, *, action_space: str | list[str] | None = "full") -> list[str]:
    """The published rules that can be read off the sketch source."""
    code, truncated = strip_code(source)
    reasons: list[str] = []
    if truncated:
        reasons.append(truncated)
    if not re.search(r"function\s+setup\s*\(|\bsetup\s*=", code):
        reasons.append("missing skeleton: no setup() function")
    if not re.search(r"createCanvas\s*\([^)]{0,200}?\bWEBGL\b", code):
        reasons.append("missing skeleton: no createCanvas(..., WEBGL)")
    defined = {a or b for a, b in _FUNC_DEF_RE.findall(code)}
    ext = sorted({(m.group(1) or m.group(2) or m.group(0).strip().rstrip("(")).strip() for m in _EXTERNAL_RE.finditer(code)}
                 - defined)
    if ext:
        reasons.append("external access: " + ", ".join(ext))
    if re.search(r"https?://", source) and not any("http" in r for r in ext):
        reasons.append("external access: a URL in the code")
    if _TEXT_RE.search(code) and "text" not in defined:
        reasons.append("text() is not allowed")
    bare = sorted({m.group(1) for m in _BARE_RE.finditer(code)} - defined)
    if bare:
        reasons.append("bare p5 drawing (use brush.*): " + ", ".join(bare))
    from ..brush.action_space import get_space
    from ..brush.commands import BRUSH_METHODS, LEGACY_NAMES, SPECS

    called = {m.group(1) for m in _BRUSH_CALL_RE.finditer(code)}
    # (p5's own calls the program records, background, push, pop and frame, are no brush methods)
    unknown = sorted(m for m in called if m not in BRUSH_METHODS and m not in LEGACY_NAMES
                     and m not in ("Polygon", "Plot", "Position"))
    if unknown:
        reasons.append("unknown brush method(s): " + ", ".join(unknown))
    if action_space is not None:
        space = get_space(action_space)
        outside = sorted(m for m in called if m in SPECS and m not in space)
        if outside:
            reasons.append(f"outside the {space.name} action space: " + ", ".join(outside))
    return reasons


def _covered(reason: str, sandbox: str) -> bool:
    """Whether the sandbox's own verdict already says what this source rule says (no duplicate reasons)."""
    if reason.startswith("text()"):
        return "text()" in sandbox
    if reason.startswith("bare p5 drawing"):
        names = reason.split(": ", 1)[1].split(", ")
        return all(f"{n}()" in sandbox for n in names)
    if reason.startswith("unknown brush method"):
        return "unknown brush method" in sandbox
    if reason.startswith("external access"):
        return "forbidden" in sandbox
    if reason.startswith("outside the"):
        return "action space" in sandbox
    if reason.startswith("missing skeleton"):
        return "missing skeleton" in sandbox
    return False


def painted_commands(program) -> int:
    """How many commands in ``program`` put paint on the canvas (``background`` does not count)."""
    from ..brush.commands import SPECS

    return sum(1 for c in program.commands if c.method != "background" and SPECS[c.method].kind == "draw")


def check_gate(*, image: np.ndarray | None, program=None, source: str | None = None,
               violations: list[str] | tuple[str, ...] = (), error: str | None = None,
               background: tuple[int, int, int] | None = None, action_space: str | list[str] | None = "full",
               coverage_value: float | None = None) -> GateResult:
    """Apply every gate rule; all failing rules are listed, not just the first."""
    reasons: list[str] = []
    if error:
        reasons.append(f"sketch failed: {error}")
    reasons.extend(str(v) for v in violations)
    if source is not None:
        sandbox = " | ".join([*map(str, violations), error or ""])
        reasons.extend(r for r in source_reasons(source, action_space=action_space) if not _covered(r, sandbox))
    cov = coverage_value if coverage_value is None or math.isfinite(coverage_value) else None  # NaN: measure
    if program is None and image is None and not reasons:
        reasons.append("nothing painted: no program and no image")
    if program is not None and painted_commands(program) == 0:
        reasons.append("nothing painted: the program has no drawing call")
    elif image is not None and cov is None:
        from ..render import background_of
        from ..render.coverage import coverage

        bg = background if background is not None else (background_of(program) if program is not None
                                                         else (255, 255, 255))
        cov = float(coverage(image, background=bg))
    if cov is not None and cov < MIN_COVERAGE and not any(r.startswith("nothing painted") for r in reasons):
        reasons.append(f"painted {cov:.2%} of the canvas (< {MIN_COVERAGE:.1%})")
    if program is not None and image is None and not reasons:
        reasons.append("no image to check coverage on")
    seen: set[str] = set()
    uniq = [r for r in reasons if not (r in seen or seen.add(r))]
    return GateResult(passed=not uniq, reasons=uniq, coverage=cov)
