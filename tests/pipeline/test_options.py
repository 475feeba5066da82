"""One options value: :class:`rankwise.pipeline.options.EvaluationOptions` holds the keyword options of
``rankwise.evaluate``; every public keyword of ``evaluate``, ``compare``, ``compare_dialects`` and
``rankwise.spark.evaluate`` is one of its fields (or the function's own), with the same default and type; building it
checks nothing, so each error comes when it always came; the command-line options are defined once and give the same
value."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

import rankwise
from rankwise.cli import main
from rankwise.cli.commands import dialects as dialects_command
from rankwise.cli.commands import evaluate as evaluate_command
from rankwise.cli.compare import compare as compare_command
from rankwise.cli.options import INPUT_OPTIONS, MEASURES, OPTIONS, to_evaluation_options
from rankwise.comparison.systems import EVALUATE_OPTIONS, Settings
from rankwise.io.tabular import columns_from_names
from rankwise.pipeline.options import OPTION_NAMES, EvaluationOptions
from rankwise.pipeline.plan import make_plan

EXAMPLES = Path(rankwise.__file__).parent / "examples"
QRELS, RUN, RUN2 = (str(EXAMPLES / name) for name in ("qrels.txt", "run.txt", "run_rm3.txt"))
FIELDS = {field.name: field for field in dataclasses.fields(EvaluationOptions)}


def _spark_evaluate() -> Callable[..., Any]:
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    from rankwise.spark import evaluate

    return evaluate


def _keywords(function: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(function).parameters.items() if p.kind is p.KEYWORD_ONLY}


OWN = {"compare_dialects": {"dialects"}, "spark": {"partitions", "chunk_rows", "max_query_rows", "order_column"}}
"""The keywords that are a function's own, not evaluation options."""


@pytest.mark.parametrize("name", ["evaluate", "compare_dialects", "spark"])
def test_every_keyword_is_a_field_with_its_default_and_type(name: str) -> None:
    function = _spark_evaluate() if name == "spark" else getattr(rankwise, name)
    keywords = _keywords(function)
    options = [k for k in keywords if k not in OWN.get(name, set())]
    assert set(options) <= set(FIELDS), f"{name} keywords that are no field: {sorted(set(options) - set(FIELDS))}"
    assert options == [k for k in OPTION_NAMES if k in options], "fields in the order of the keywords"
    for keyword in options:
        assert keywords[keyword].default == FIELDS[keyword].default, keyword
        assert keywords[keyword].annotation == FIELDS[keyword].type, keyword


def test_evaluate_takes_every_field() -> None:
    assert tuple(_keywords(rankwise.evaluate)) == OPTION_NAMES == EVALUATE_OPTIONS


def test_compare_passes_every_option_on_and_keeps_only_its_settings() -> None:
    parameters = inspect.signature(rankwise.compare).parameters
    assert any(p.kind is p.VAR_KEYWORD for p in parameters.values())  # **options: the fields, checked by name
    own = set(_keywords(rankwise.compare))
    assert own == {f.name for f in dataclasses.fields(Settings)} | {"pairs", "names"}, "a new compare keyword is an "
    "evaluation option (leave it to **options) or a setting of the comparison"


def test_the_value_keeps_what_it_is_given_and_checks_it_when_planned() -> None:
    bad = EvaluationOptions(ties="bogus", grades="x", threshold="a", depth=0, cutoffs=5)  # type: ignore[arg-type]
    assert bad.ties == "bogus" and bad.cutoffs == 5  # building checks nothing
    with pytest.raises(rankwise.RankwiseError, match="threshold must be a number"):
        bad.plan(["P@5"])  # dialect, threshold, policies, cutoffs, measures, grades: in this order
    with pytest.raises(rankwise.MeasureError, match="unknown measure"):
        EvaluationOptions(grades="x").plan(["nDGC"])  # type: ignore[arg-type]
    with pytest.raises(rankwise.RankwiseError, match="grades must be"):
        EvaluationOptions(grades="x").plan(["nDCG"])  # type: ignore[arg-type]
    options = EvaluationOptions(dialect="ranx", cutoffs=[5], rel_level=2, ties="docno_asc")
    assert options.plan(["nDCG"]) == make_plan(["nDCG"], "ranx", cutoffs=[5], rel_level=2, ties="docno_asc")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.depth = 3  # type: ignore[misc]


def test_from_arguments_and_keywords() -> None:
    def call(qrels: Any, run: Any, *, depth: int | None = None, partitions: int = 4) -> EvaluationOptions:
        return EvaluationOptions.from_arguments(locals())

    assert call(1, 2, depth=3) == EvaluationOptions(depth=3)
    options = EvaluationOptions(depth=3, queries="qrels", train={"u": ["i"]})
    assert options.keywords() == {"depth": 3, "rel_level": 1, "queries": "qrels", "train": {"u": ["i"]}}
    assert EvaluationOptions.from_arguments(options.keywords()) == options


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ties": "bogus", "depth": 0}, "unknown tie policy 'bogus'"),
        ({"grades": "x"}, "unknown measure 'nDGC'"),
        ({"cutoffs": 5}, "cutoffs must be a list of integers"),
        ({"dialect": 3, "ties": "bogus"}, "dialect must be a name"),
        ({"threshold": float("nan"), "ties": "bogus"}, "threshold must be a finite number"),
    ],
)
def test_every_function_reports_the_first_error_as_evaluate_does(options: dict[str, Any], message: str) -> None:
    measures = ["nDGC"] if "grades" in options else ["P@5"]
    for call in (
        lambda: rankwise.evaluate(QRELS, RUN, measures, **options),
        lambda: rankwise.compare(QRELS, [RUN, RUN2], measures, **options),
    ):
        with pytest.raises(rankwise.RankwiseError, match=message):
            call()


def test_compare_checks_its_own_requests_before_the_options() -> None:
    with pytest.raises(rankwise.RankwiseError, match="unknown option 'bogus'; evaluate's options are dialect, ties"):
        rankwise.compare(QRELS, [RUN], ["AP"], bogus=1, ties="bogus")
    with pytest.raises(rankwise.RankwiseError, match="at least two runs"):
        rankwise.compare(QRELS, [RUN], ["AP"], ties="bogus")
    with pytest.raises(rankwise.RankwiseError, match="alpha must lie in"):
        rankwise.compare(QRELS, [RUN, RUN2], ["AP"], alpha=2, depth=0)


def test_compare_dialects_reads_a_bad_threshold_as_not_computed() -> None:
    comparison = rankwise.compare_dialects(QRELS, RUN, ["AP"], dialects=["trec_eval", "elliot"], threshold=1.5)
    elliot = next(row for row in comparison.rows if row.dialect.startswith("elliot"))
    assert any(reason.startswith("not computed: dialect elliot") for reason in elliot.reasons)
    with pytest.raises(rankwise.InputError, match="no such file"):
        rankwise.compare_dialects(QRELS, "missing.txt", ["AP"], rel_level=-1)  # the run is read first


def test_spark_checks_the_options_before_the_frames() -> None:
    evaluate = _spark_evaluate()
    with pytest.raises(rankwise.RankwiseError, match="unknown tie policy"):
        evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@5"], ties="bogus", partitions=0)
    with pytest.raises(rankwise.InputError, match="takes Spark DataFrames; qrels is a dict"):
        evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@5"], partitions=0)


# The command line


CLI_ONLY = {MEASURES: None, "all_queries": "queries", "truth_cols": "qrels_columns", "rec_cols": "run_columns"}
"""Shared options whose value is no field of the same name: the field it gives (None: measures are no option)."""


def test_every_command_line_option_gives_a_field_and_every_field_but_progress_has_one() -> None:
    given = {CLI_ONLY.get(name, name) for name in OPTIONS} - {None}
    assert given <= set(FIELDS)
    assert set(FIELDS) - given == {"progress"}  # the command line shows a progress bar instead
    for name, option in OPTIONS.items():
        parameter = click.Option(option.declarations, **option.attributes)
        assert parameter.name == name  # the name click passes the value by


@pytest.mark.parametrize(
    ("command", "shared"),
    [
        (evaluate_command, list(OPTIONS)),
        (compare_command, [MEASURES, "rel_level", "all_queries", "queries", "depth", "ties", "scores", "dialect",
                           *INPUT_OPTIONS, "groups"]),
        (dialects_command, [MEASURES, "rel_level", *INPUT_OPTIONS]),
    ],
)  # fmt: skip
def test_commands_take_the_shared_options_in_their_order(command: click.Command, shared: list[str]) -> None:
    names = [p.name for p in command.params]
    assert [n for n in names if n in OPTIONS and (command is not compare_command or n != "baseline")] == shared
    if command is not dialects_command:  # dialects says it in fewer words
        by_name = {p.name: p for p in command.params if isinstance(p, click.Option)}
        assert all(by_name[n].help == OPTIONS[n].attributes["help"] for n in shared)


def _captured(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def capture(*args: Any, **kwargs: Any) -> Any:
        seen["args"], seen["kwargs"] = args, kwargs
        raise click.exceptions.Exit(0)

    monkeypatch.setattr(f"{module}.{name}", capture)
    return seen


ARGS = ["-l", "2", "-c", "-M", "7", "--ties", "docno_asc", "--scores", "float32", "--dialect", "ranx", "-k", "5,10",
        "--threshold", "3.5", "--truth-cols", "u,i,r", "--rec-cols", "u,i,rank", "--train", "t.csv", "--catalog", "9"]
EXPECTED = EvaluationOptions(rel_level=2, queries="qrels", depth=7, ties="docno_asc", scores="float32", dialect="ranx",
                             cutoffs=[5, 10], threshold=3.5, qrels_columns=columns_from_names("u,i,r", "qrels"),
                             run_columns=columns_from_names("u,i,rank", "run"), train="t.csv", catalog=9)  # fmt: skip


def test_evaluate_command_gives_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _captured(monkeypatch, "rankwise.pipeline.evaluate", "evaluate_with")
    more = ["-J", "--stream", "--subtopics", "s.txt", "--features", "f.csv", "--baseline", "b.txt", "--grades", "real"]
    result = CliRunner().invoke(main, ["evaluate", QRELS, RUN, "-m", "AP", *ARGS, *more])
    assert result.exit_code == 0, result.output
    qrels, run, measures, options = seen["args"]
    assert (qrels, run, measures) == (QRELS, RUN, ["AP"])
    assert options == dataclasses.replace(EXPECTED, judged_only=True, stream=True, subtopics="s.txt", features="f.csv",
                                          baseline="b.txt", grades="real", progress=None)  # fmt: skip


def test_compare_command_gives_the_value_as_keywords(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _captured(monkeypatch, "rankwise.comparison.systems", "compare")
    result = CliRunner().invoke(main, ["compare", QRELS, RUN, RUN2, "-m", "AP", "--baseline", "2", *ARGS])
    assert result.exit_code == 0, result.output
    assert seen["kwargs"]["baseline"] == "2"  # the compared system, not evaluate's baseline run
    settings = {f.name for f in dataclasses.fields(Settings)} | {"pairs", "names"}
    options = {k: v for k, v in seen["kwargs"].items() if k not in settings}
    assert options == EXPECTED.keywords()
    assert EvaluationOptions.from_arguments(options) == EXPECTED


def test_dialects_command_gives_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _captured(monkeypatch, "rankwise.cli.explain", "show_dialects")
    result = CliRunner().invoke(main, ["dialects", QRELS, RUN, "-m", "AP", "-l", "2", "-k", "5", "--catalog", "9"])
    assert result.exit_code == 0, result.output
    assert seen["args"] == ("table", QRELS, RUN, ["AP"], 2, {"cutoffs": [5], "catalog": 9})


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"all_queries": True, "queries": "run", "cutoffs": "x"}, "-c contradicts --queries run"),
        ({"cutoffs": "x", "truth_cols": "a"}, "-k 'x': cutoffs must be integers separated by commas"),
        ({"truth_cols": "a", "rec_cols": "b"}, "columns 'a': give three names, query,document,rating"),
        ({"rec_cols": "b"}, "columns 'b': give three names, query,document,score"),
    ],
)
def test_command_line_values_are_checked_in_order(given: dict[str, Any], message: str) -> None:
    with pytest.raises(rankwise.RankwiseError, match=message):
        to_evaluation_options(given)


def test_command_line_defaults_are_the_fields_defaults() -> None:
    assert to_evaluation_options({}) == EvaluationOptions()
    assert to_evaluation_options({"all_queries": False, "judged_only": False, "rel_level": 1}) == EvaluationOptions()
    assert to_evaluation_options({"all_queries": True, "queries": "qrels"}).queries == "qrels"
