"""trec_eval's ``-m`` grammar: which measures a list of ``-m`` arguments asks for, under the names trec_eval prints.

trec_eval marks measures of its measure table (``measures.c``): ``-m NAME`` marks one, ``-m NICKNAME`` a set
(``official``, ``all_trec``, ``set``; ``all_prefs`` and ``prefs`` for preference judgments, ``qrels_jg`` for
judgment groups), and ``-m NAME.PARAMS`` marks one and gives its parameters — the first
``-m`` with parameters for a name wins. Marked measures print in table order, each under the name trec_eval
builds from its parameters:

- cutoff lists (``P.5,10``: integers as C's ``atol`` reads them; ``iprec_at_recall.0.25``, ``Rprec_mult.0.5``:
  numbers), sorted, printed ``NAME_k`` (``NAME_x`` with two decimals for numbers);
- a list of numbers (``set_F.0.5``, ``utility.2,-1,0,0``, ``11pt_avg..25,.5``, ``relstring.20``) or of
  ``key=value`` pairs (``ndcg.1=3,2=9``, ``rbp.p=0.8``), printed ``NAME_PARAMS`` exactly as written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import MeasureError
from ..measures.catalog import closest
from ..measures.spec import Measure
from ..measures.trec_names import (
    ALL_PREFS,
    ALL_TREC,
    CUTOFF_FAMILIES,
    JUDGMENT_GROUP_MEASURES,
    NOT_COMPUTED,
    OFFICIAL,
    PLAIN_MEASURES,
    PREFS_COUNTS,
    PREFS_MEASURES,
    PREFS_OFFICIAL,
    QRELS_JG,
    SET_MEASURES,
    TABLE_ORDER,
)  # fmt: skip
from ..wording import shorten

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": OFFICIAL, "all_trec": ALL_TREC, "set": SET_MEASURES, "all_prefs": ALL_PREFS, "prefs": PREFS_OFFICIAL,
    "qrels_jg": QRELS_JG,
}  # fmt: skip
JUDGMENT_FORMATS = {"qrels": "qrels", "qrels_jg": "qrels_jg", "prefs": "prefs", "qrels_prefs": "prefs"}
"""trec_eval's judgment formats (``-R``) and the kind of judgments each gives its measures."""
_DEFAULT_RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
_DEFAULT_RELSTRING_LENGTH = 10


@dataclass(frozen=True)
class TrecEvalMeasure:
    """One line per query of trec_eval's output: the name it prints, the measure of its table it belongs to
    (``root``) and the rankwise measure computing it (None for ``runid`` and ``relstring``, which print text, and
    for the preference measures; for a measure averaged over judgment groups, the measure averaged)."""

    name: str
    root: str
    measure: Measure | None
    relstring_length: int = 0

    @property
    def is_count(self) -> bool:
        """Printed as an integer (``%ld``)."""
        return self.root in PREFS_COUNTS or (self.measure is not None and self.measure.spec.is_count)

    @property
    def prints_text(self) -> bool:
        """Printed as text (the run's tag, a relevance string), not as a number."""
        return self.root in ("runid", "relstring")

    @property
    def judgments(self) -> str | None:
        """The kind of judgments the line needs: ``qrels``, ``qrels_jg`` or ``prefs`` (None: any)."""
        if self.root in ("runid", "num_q"):
            return None
        if self.root in JUDGMENT_GROUP_MEASURES:
            return "qrels_jg"
        return "prefs" if self.root in PREFS_MEASURES else "qrels"


@dataclass(frozen=True)
class TrecEvalRequest:
    """What ``-m`` asked for: the lines in trec_eval's order and the measures rankwise does not compute."""

    measures: tuple[TrecEvalMeasure, ...]
    not_computed: tuple[str, ...]
    asked: bool = True
    """Whether ``-m`` was given (else trec_eval's official measures are asked for)."""

    def check_judgments(self, rel_format: str) -> None:
        """Refuse a measure the judgment format ``rel_format`` (``-R``) cannot give (trec_eval stops at the first
        query with "Can't calculate measure", status 4)."""
        kind = JUDGMENT_FORMATS[rel_format]
        wrong = [line.root for line in self.measures if line.judgments not in (None, kind)]
        if wrong:
            default = "" if self.asked else " (no -m: trec_eval's official measures)"
            raise MeasureError(f"-m {wrong[0]}{default} cannot be computed from -R {rel_format} judgments: they give "
                               f"{_GIVEN[kind]}")  # fmt: skip


_GIVEN = {
    "qrels": "every measure but the preference and judgment-group ones (-m all_trec)",
    "qrels_jg": "runid, num_q, map_avgjg, P_avgjg and Rprec_mult_avgjg (-m qrels_jg)",
    "prefs": "runid, num_q and the prefs_* measures (-m all_prefs)",
}


def c_atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text`` after blanks (``"23.4"`` → 23), 0 when there is none."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match[1]) if match else 0


_C_NUMBER = re.compile(
    r"\s*(?P<sign>[+-]?)(?:"
    r"0[xX](?P<hex>(?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)"
    r"|(?P<dec>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<inf>(?i:inf(?:inity)?))"
    r"|(?P<nan>(?i:nan)(?:\([0-9A-Za-z_]*\))?))"
)


def c_atof(text: str) -> float:
    """C's ``atof`` (``strtod``, C99): the leading number of ``text`` after blanks, 0.0 when there is none — a
    decimal (``".25"`` → 0.25, ``"1e999"`` → inf), a hexadecimal (``"0x10"`` → 16, ``"0x1p-1"`` → 0.5), ``inf``/
    ``infinity`` or ``nan``/``nan(...)``, any case, with an optional sign."""
    match = _C_NUMBER.match(text)
    if not match:
        return 0.0
    sign = -1.0 if match["sign"] == "-" else 1.0
    if match["hex"] is not None:
        digits = match["hex"] if re.search(r"[pP]", match["hex"]) else match["hex"] + "p0"
        try:
            return sign * float.fromhex("0x" + digits)
        except OverflowError:
            return sign * math.inf
    if match["dec"] is not None:
        return sign * float(match["dec"])
    return sign * (math.inf if match["inf"] is not None else math.nan)


def trec_eval_request(arguments: Sequence[str]) -> TrecEvalRequest:
    """The measures ``-m ARG`` for each of ``arguments`` ask for (``official`` when there are none)."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for argument in arguments or ["official"]:
        name, dot, text = argument.partition(".")
        if dot and name not in params:
            params[name] = text
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in TABLE_ORDER:
            marked.add(name)
        else:
            raise MeasureError(f"-m {shorten(argument)}: trec_eval has no measure {shorten(name)!r}"
                               f"{_suggest(argument)}")  # fmt: skip
    lines: list[TrecEvalMeasure] = []
    skipped = []
    for root in TABLE_ORDER:
        if root not in marked:
            continue
        if root in NOT_COMPUTED:
            skipped.append(root)
            continue
        lines.extend(_lines(root, params.get(root)))
    return TrecEvalRequest(tuple(lines), tuple(skipped), asked=bool(arguments))


def _suggest(argument: str) -> str:
    """'; did you mean ...?' for an ``-m`` argument whose name trec_eval does not know: its closest names
    (:func:`rankwise.measures.catalog.closest`, as for rankwise's measure names). Without parameters, among its
    measures and nicknames; with parameters, among the measures that read such parameters (numbers such as cutoffs,
    or ``name=value`` pairs), each shown with them: ``ndcg_cutt.10`` → ``ndcg_cut.10``. A name as trec_eval prints
    it (``P_5``, ``ndcg_cut_10``) or as rankwise writes it (``P@5``) is shown as ``-m`` reads it (``P.5``)."""
    printed = re.fullmatch(r"(\w+?)[_@]([\d.]+)", argument)
    if printed and _reads(printed[1]) == "numbers":
        return _did_you_mean([f"{printed[1]}.{printed[2]}"])
    name, _, text = argument.partition(".")
    if not text:
        return _did_you_mean(closest(name, [*NICKNAMES, *TABLE_ORDER]))
    reading = [root for root in TABLE_ORDER if _reads(root) == ("pairs" if "=" in text else "numbers")]
    return _did_you_mean([f"{root}.{shorten(text)}" for root in closest(name, reading)])


def _did_you_mean(names: list[str]) -> str:
    return f"; did you mean {', '.join(names)}?" if names else ""


def _reads(root: str) -> str | None:
    """The parameters measure ``root`` reads: ``numbers`` (cutoffs, levels, coefficients), ``pairs``
    (``name=value``) or None (none)."""
    base = JUDGMENT_GROUP_MEASURES.get(root, root)
    if base in CUTOFF_FAMILIES or base in ("Rprec_mult", "relstring", "set_F", "utility", "11pt_avg"):
        return "numbers"
    return "pairs" if base in _PARAMETERISED else None


def _lines(root: str, text: str | None) -> list[TrecEvalMeasure]:
    """The lines of one marked measure, with its parameters ``text`` (None: trec_eval's defaults)."""
    if root == "runid":
        return [TrecEvalMeasure("runid", root, None)]
    if root == "relstring":
        length = _DEFAULT_RELSTRING_LENGTH if text is None else int(_numbers(root, text)[0])
        return [TrecEvalMeasure("relstring" if text is None else f"relstring_{text}", root, None, max(length, 0))]
    if root in JUDGMENT_GROUP_MEASURES:  # the lines of the measure averaged, renamed: P_5 -> P_avgjg_5
        base = JUDGMENT_GROUP_MEASURES[root]
        return [TrecEvalMeasure(root + line.name[len(base) :], root, line.measure) for line in _lines(base, text)]
    if root in PREFS_MEASURES:
        if text is not None:
            raise MeasureError(f"-m {root}.{shorten(text)}: trec_eval's {root} takes no parameters")
        return [TrecEvalMeasure(root, root, None)]
    if root in CUTOFF_FAMILIES or root == "Rprec_mult":
        return _cutoff_lines(root, text)
    build = _PARAMETERISED.get(root)
    if text is None or build is None:
        if text is not None:
            raise MeasureError(f"-m {root}.{shorten(text)}: trec_eval's {root} takes no parameters")
        return [TrecEvalMeasure(root, root, Measure(PLAIN_MEASURES[root]))]
    return [TrecEvalMeasure(f"{root}_{text}", root, build(root, text))]


def _cutoff_lines(root: str, text: str | None) -> list[TrecEvalMeasure]:
    """``P``, ``P.5,10``, ``iprec_at_recall..25``, ``Rprec_mult.0.5``: one line per cutoff, sorted."""
    by_number = root in ("iprec_at_recall", "Rprec_mult")
    if text is None:
        cutoffs = list(_DEFAULT_RPREC_MULTS if root == "Rprec_mult" else CUTOFF_FAMILIES[root][1])
    else:
        cutoffs = sorted(c_atof(part) if by_number else c_atol(part) for part in text.split(","))
        if not all(math.isfinite(c) for c in cutoffs):
            raise MeasureError(f"-m {root}.{shorten(text)}: parameters must be finite numbers")
        if len(set(cutoffs)) < len(cutoffs):
            raise MeasureError(f"-m {root}.{shorten(text)}: a cutoff is given twice")
        if not by_number and cutoffs[0] <= 0:
            raise MeasureError(f"-m {root}.{shorten(text)}: cutoffs must be positive integers")
    out = []
    for cutoff in cutoffs:
        if root == "Rprec_mult":
            measure = Measure("Rprec", params=(("mult", cutoff),))
        else:
            measure = Measure(CUTOFF_FAMILIES[root][0], cutoff=cutoff)
        out.append(TrecEvalMeasure(f"{root}_{cutoff:.2f}" if by_number else f"{root}_{cutoff}", root, measure))
    return out


def _numbers(root: str, text: str) -> list[float]:
    """A comma-separated list of numbers, read as C's ``atof`` reads each."""
    numbers = [c_atof(part) for part in text.split(",")]
    if not all(math.isfinite(n) for n in numbers):
        raise MeasureError(f"-m {root}.{shorten(text)}: parameters must be finite numbers")
    return numbers


def _pairs(root: str, text: str) -> list[tuple[str, float]]:
    """``key=value,...`` as trec_eval's get_param_pairs reads it."""
    pairs = []
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise MeasureError(f"-m {root}.{shorten(text)}: parameters must look like name=value,name=value")
        number = c_atof(value)
        if not math.isfinite(number):
            raise MeasureError(f"-m {root}.{shorten(text)}: {shorten(key)}={shorten(value)} is not a finite number")
        pairs.append((key, number))
    return pairs


def _set_f(root: str, text: str) -> Measure:
    """``set_F.x``: trec_eval weighs with x where F_β has β², so x = β²."""
    weight = _numbers(root, text)[0]
    if weight <= 0:
        raise MeasureError(f"-m {root}.{shorten(text)}: the weight must be positive")
    return Measure("F1", params=(("beta", _root_squaring_to(weight)),))


def _root_squaring_to(weight: float) -> float:
    """A β with β·β == ``weight`` exactly where one exists (√weight or a float next to it), so that F computes
    trec_eval's (x + 1)·P·R / (x·P + R) with x = ``weight`` bit for bit; else √weight."""
    beta = math.sqrt(weight)
    candidates = [beta, math.nextafter(beta, math.inf), math.nextafter(beta, 0.0)]
    return next((b for b in candidates if b * b == weight), beta)


def _utility(root: str, text: str) -> Measure:
    """``utility.a,b,c,d``: the four coefficients."""
    numbers = _numbers(root, text)
    if len(numbers) != 4:
        raise MeasureError(f"-m {root}.{shorten(text)}: utility takes exactly four coefficients")
    names = ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret")
    return Measure("Utility", params=tuple(zip(names, numbers)))


def _eleven_point(root: str, text: str) -> Measure:
    """``11pt_avg.x,y,...``: the recall levels, in ascending order (trec_eval's m_11pt_avg.c walks them assuming it,
    and gives another number for levels out of order: refused)."""
    levels = _numbers(root, text)
    if levels != sorted(levels):
        raise MeasureError(f"-m {root}.{shorten(text)}: give the recall levels in ascending order (trec_eval "
                           "computes another number from levels out of order)")  # fmt: skip
    return Measure("IPrecAvg", params=(("levels", tuple(levels)),))


def _gain_map(root: str, text: str) -> Measure:
    """``ndcg.1=3,2=9`` (also ``dcg``, ``ideal_dcg``, ``G``, ``ndcg_rel``, ``Rndcg``): gains of grades (grade 0
    may be given a gain too; negative grades may not)."""
    gains = []
    for key, value in _pairs(root, text):
        if not re.fullmatch(r"\d+", key):
            raise MeasureError(f"-m {root}.{shorten(text)}: {shorten(key)!r} is not a grade >= 0")
        gains.append((int(key), value))
    params: tuple[tuple[str, object], ...] = (("gain", tuple(gains)),)
    family = PLAIN_MEASURES[root]
    if any(grade == 0 for grade, _ in gains) and family != "RnDCG":  # RnDCG's rel is -l; its gains see the map
        params = (("rel", 0), *params)  # grade 0 counts only when it has a gain of its own
    return Measure(family, params=params)  # type: ignore[arg-type]


def _rbp(root: str, text: str) -> Measure:
    """``rbp.p=0.8``: the persistence (gains of grades are not supported)."""
    params = dict(_pairs(root, text))
    if set(params) - {"p"}:
        raise MeasureError(f"-m {root}.{shorten(text)}: rankwise's {root} takes only p=... (grade gains are not "
                           "supported)")  # fmt: skip
    return Measure(PLAIN_MEASURES[root], params=tuple(params.items()))


_PARAMETERISED: dict[str, Callable[[str, str], Measure]] = {
    "set_F": _set_f,
    "utility": _utility,
    "11pt_avg": _eleven_point,
    **{root: _gain_map for root in ("ndcg", "dcg", "ideal_dcg", "G", "ndcg_rel", "Rndcg")},
    "rbp": _rbp,
    "rbp_resid": _rbp,
}
