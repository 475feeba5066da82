"""SVMlight / libsvm ranking files: reading (against scikit-learn), writing, round trips, every error."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise
from rankwise import InputError, RankwiseError
from rankwise.ltr import LtrData, read_svmlight, read_svmlight_files, write_svmlight
from rankwise.ltr.svmlight import _parse, _parse_fast
from rankwise.ltr.svmlight_lines import parse_carefully as _parse_carefully

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
FIELDS = ("labels", "qids", "group_offsets", "indptr", "indices", "values")


def same(x: LtrData, y: LtrData, fields: tuple[str, ...] = FIELDS) -> None:
    """Equal arrays (bit for bit: -0.0 is not 0.0; NaN equals NaN) and width."""
    for field in fields:
        a, b = getattr(x, field), getattr(y, field)
        assert a.dtype == b.dtype and a.shape == b.shape, field
        if a.dtype == np.float64:
            both_nan = np.isnan(a) & np.isnan(b)
            assert np.array_equal(a.view(np.int64)[~both_nan], b.view(np.int64)[~both_nan]), field
        else:
            assert np.array_equal(a, b), field
    assert x.num_features == y.num_features


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# ---------------------------------------------------------------------------------------------------------------
# Generated files, compared with scikit-learn


def generated(rng: np.random.Generator, rows: int = 300, width: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dense features with ~30% nonzeros, labels 0-4, increasing qids with gaps, in contiguous blocks)."""
    dense = np.where(rng.random((rows, width)) < 0.3, np.round(rng.normal(size=(rows, width)), 6), 0.0)
    dense[rng.random((rows, width)) < 0.05] = rng.integers(-5, 1000, size=1)[0]
    labels = rng.integers(0, 5, size=rows)
    sizes = rng.integers(1, 25, size=rows)
    qids = np.repeat(np.sort(rng.permutation(rows * 3)[: len(sizes)]) + 1, sizes)[:rows]
    return dense, labels, qids


def render(
    dense: np.ndarray,
    labels: np.ndarray,
    qids: np.ndarray | None,
    rng: np.random.Generator,
    *,
    zero_based: bool = False,
    shuffle: bool = False,
    comments: bool = False,
    messy: bool = False,
) -> str:
    """SVMlight text for these rows: optionally unsorted indices, comments, tabs/CRLF/blank lines."""
    lines = ["# generated for rankwise tests: 1 qid:1 2:3"] if comments else []
    for r in range(len(labels)):
        columns = np.flatnonzero(dense[r])
        if shuffle:
            columns = rng.permutation(columns)
        tokens = [str(labels[r])] + ([f"qid:{qids[r]}"] if qids is not None else [])
        tokens += [f"{c + (0 if zero_based else 1)}:{float(dense[r, c])!r}" for c in columns]
        separator = "\t" if messy and r % 3 == 0 else (" " * (1 + r % 2) if messy else " ")
        line = separator.join(tokens)
        if comments and r % 2:
            line += f" #docid = GX{r:06d} inc = 1 prob = 0.5"
        if messy and r % 5 == 0:
            line = "  " + line + "   \r"
        lines.append(line)
        if (comments or messy) and r % 7 == 0:
            lines.append("" if messy else "#   a whole-line comment")
    return "\n".join(lines) + "\n"


def sklearn_load(path: Path, width: int, zero_based: bool = False):
    datasets = pytest.importorskip("sklearn.datasets")
    return datasets.load_svmlight_file(str(path), n_features=width, query_id=True, zero_based=zero_based)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"zero_based": True},
        {"comments": True},
        {"messy": True},
        {"comments": True, "messy": True, "zero_based": True},
    ],
    ids=["plain", "zero_based", "comments", "messy_whitespace", "all"],
)
def test_matches_sklearn(tmp_path: Path, options: dict) -> None:
    rng = np.random.default_rng(len(str(options)))
    dense, labels, qids = generated(rng)
    path = write(tmp_path / "data.txt", render(dense, labels, qids, rng, **options))
    zero_based = options.get("zero_based", False)
    X, y, q = sklearn_load(path, dense.shape[1], zero_based)
    data = read_svmlight(path, num_features=dense.shape[1], zero_based=zero_based)
    assert np.array_equal(data.to_scipy().toarray(), X.toarray())
    assert np.array_equal(data.dense(np.float64), dense)
    assert np.array_equal(data.labels, y.astype(np.int64))
    assert np.array_equal(data.qids[data.row_groups()], q)
    assert (data.to_scipy() != X).nnz == 0


def test_unsorted_indices_are_sorted(tmp_path: Path) -> None:
    """scikit-learn refuses unsorted indices; rankwise sorts them: equal to scikit-learn on the sorted file."""
    rng = np.random.default_rng(7)
    dense, labels, qids = generated(rng)
    unsorted = write(tmp_path / "unsorted.txt", render(dense, labels, qids, rng, shuffle=True))
    ordered = write(tmp_path / "sorted.txt", render(dense, labels, qids, rng))
    assert unsorted.read_bytes() != ordered.read_bytes()
    X, y, _ = sklearn_load(ordered, dense.shape[1])
    assert np.array_equal(labels, y)
    data = read_svmlight(unsorted, num_features=dense.shape[1])
    assert np.array_equal(data.to_scipy().toarray(), X.toarray())
    assert all(np.all(np.diff(data.indices[a:b]) > 0) for a, b in zip(data.indptr[:-1], data.indptr[1:]))
    same(data, read_svmlight(ordered, num_features=dense.shape[1]))


def test_repeated_index_last_wins(tmp_path: Path) -> None:
    path = write(tmp_path / "r.txt", "1 qid:1 5:1.5 2:7 5:-3 2:0 9:1\n0 qid:1 3:1 3:2 3:3\n")
    data = read_svmlight(path)
    assert data.indices.tolist() == [1, 4, 8, 2]
    assert data.values.tolist() == [0.0, -3.0, 1.0, 3.0]  # explicit zeros are kept
    assert data.indptr.tolist() == [0, 3, 4]


def test_structure_and_conversions(tmp_path: Path) -> None:
    text = "# whole-line comment\n2 qid:10 1:0.5 3:1 # trailing\n\n1 qid:10 2:3\n0 qid:4 1:1\n3 qid:7\n"
    with pytest.raises(InputError, match=r"s.txt:5: qid 4 comes after qid 10 \(line 2\); qids must increase"):
        read_svmlight(write(tmp_path / "s.txt", text))
    data = read_svmlight(tmp_path / "s.txt", qid_order="any")
    assert (data.num_rows, data.num_groups, data.num_features, data.nnz) == (4, 3, 3, 4)
    assert data.labels.tolist() == [2, 1, 0, 3]
    assert data.qids.tolist() == [10, 4, 7]  # as in the file, not sorted
    assert data.group_offsets.tolist() == [0, 2, 3, 4]
    assert data.group_sizes.tolist() == [2, 1, 1]
    assert data.dense().dtype == np.float32
    assert data.dense(np.float64).tolist() == [[0.5, 0, 1], [0, 3, 0], [1, 0, 0], [0, 0, 0]]
    assert data.source == str(tmp_path / "s.txt")
    qrels = data.to_qrels()
    assert qrels.columns == ["query_id", "doc_id", "grade"]
    assert qrels.rows() == [("10", "0", 2), ("10", "1", 1), ("4", "0", 0), ("7", "0", 3)]
    run = data.to_run([0.1, 0.2, 0.3, 0.4])
    assert run.columns == ["query_id", "doc_id", "score"] and run["score"].to_list() == [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(InputError, match="3 scores for 4 rows"):
        data.to_run([1, 2, 3])
    with pytest.raises(ValueError):
        data.labels[0] = 5  # read-only


def test_select_groups(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    dense, labels, qids = generated(rng, rows=120)
    data = read_svmlight(write(tmp_path / "g.txt", render(dense, labels, qids, rng)), num_features=40)
    picked = data.select_groups([2, 0, 5])
    rows = np.concatenate([np.arange(data.group_offsets[g], data.group_offsets[g + 1]) for g in (2, 0, 5)])
    assert np.array_equal(picked.dense(), data.dense()[rows])
    assert np.array_equal(picked.labels, data.labels[rows])
    assert picked.qids.tolist() == data.qids[[2, 0, 5]].tolist()
    assert np.array_equal(picked.group_sizes, data.group_sizes[[2, 0, 5]])
    mask = np.zeros(data.num_groups, dtype=bool)
    mask[1::2] = True
    same(data.select_groups(mask), data.select_groups(np.flatnonzero(mask)))
    same(data.select_groups(slice(None)), data)
    assert data.select_groups([]).num_rows == 0


def test_evaluate_with_lightgbm_dialect(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    dense, labels, qids = generated(rng)
    data = read_svmlight(write(tmp_path / "e.txt", render(dense, labels, qids, rng)))
    perfect = rankwise.evaluate(data.to_qrels(), data.to_run(data.labels), ["nDCG@5"], dialect="lightgbm")
    assert perfect.aggregate["nDCG@5"] == pytest.approx(1.0)
    worst = rankwise.evaluate(data.to_qrels(), data.to_run(-data.labels), ["nDCG@5"], dialect="lightgbm")
    assert worst.aggregate["nDCG@5"] < 0.9


def test_lightgbm_ndcg_matches(tmp_path: Path) -> None:
    """LightGBM's own validation nDCG@5 equals rankwise's (lightgbm dialect) on data read here."""
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(11)
    dense, labels, qids = generated(rng, rows=400)
    data = read_svmlight(write(tmp_path / "l.txt", render(dense, labels, qids, rng)))
    train = lgb.Dataset(data.to_scipy(), data.labels, group=data.group_sizes)
    history: dict = {}
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [5], "min_data_in_leaf": 5, "verbose": -1}
    model = lgb.train(
        params,
        train,
        num_boost_round=5,
        valid_sets=[train],
        valid_names=["train"],
        callbacks=[lgb.record_evaluation(history)],
    )
    theirs = history["train"]["ndcg@5"][-1]
    ours = rankwise.evaluate(
        data.to_qrels(), data.to_run(model.predict(data.to_scipy())), ["nDCG@5"], dialect="lightgbm"
    ).aggregate["nDCG@5"]
    assert ours == pytest.approx(theirs, abs=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# Query files


def test_query_file_auto_detected(tmp_path: Path) -> None:
    path = write(tmp_path / "train.txt", "1 1:1\n0 2:1\n2 1:3\n0 3:1\n")
    with pytest.raises(InputError, match=r"train\.txt: no qid: on the rows and no query file .*train\.txt\.query"):
        read_svmlight(path)
    assert read_svmlight(path, require_groups=False).group_offsets.tolist() == [0, 4]
    write(tmp_path / "train.txt.query", "3\n1\n")
    data = read_svmlight(path)
    assert data.group_offsets.tolist() == [0, 3, 4] and data.qids.tolist() == [0, 1]
    assert read_svmlight(path, query_file=False, require_groups=False).num_groups == 1
    other = write(tmp_path / "groups.txt", "1\n\n3\n")
    assert read_svmlight(path, query_file=other).group_sizes.tolist() == [1, 3]


def test_query_file_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "t.txt", "1 1:1\n0 2:1\n2 1:3\n")
    write(tmp_path / "t.txt.query", "2\n2\n")
    with pytest.raises(InputError, match=r"t\.txt\.query: group sizes add up to 4 rows but .*t\.txt has 3"):
        read_svmlight(path)
    write(tmp_path / "t.txt.query", "2\nx\n")
    with pytest.raises(InputError, match=r"t\.txt\.query:2: group size 'x' is not a positive integer"):
        read_svmlight(path)
    write(tmp_path / "t.txt.query", "3\n0\n")
    with pytest.raises(InputError, match=r"t\.txt\.query:2: group size '0'"):
        read_svmlight(path)
    with pytest.raises(InputError, match=r"nope\.query: no such query file"):
        read_svmlight(path, query_file=tmp_path / "nope.query")
    (tmp_path / "t.txt.query").unlink()
    with pytest.raises(InputError, match=r"t\.txt\.query: no such query file"):
        read_svmlight(path, query_file=True)


def test_query_file_with_qids_must_agree(tmp_path: Path) -> None:
    path = write(tmp_path / "q.txt", "1 qid:1 1:1\n0 qid:1 2:1\n2 qid:2 1:3\n")
    write(tmp_path / "q.txt.query", "1\n2\n")
    assert read_svmlight(path).group_sizes.tolist() == [2, 1]  # auto-detection only without qid:
    with pytest.raises(InputError, match="disagree with the qid: groups"):
        read_svmlight(path, query_file=True)
    write(tmp_path / "q.txt.query", "2\n1\n")
    assert read_svmlight(path, query_file=True).qids.tolist() == [1, 2]


# ---------------------------------------------------------------------------------------------------------------
# Errors: one line, naming file:line


ERRORS = [
    ("qid reappears", "2 qid:1 1:0.5\n1 qid:2 2:3\n\n0 qid:1 1:1\n", 4, "qid 1 at line 4 already ended at line 1"),
    ("qid falls", "2 qid:5 1:0.5\n1 qid:5 2:3\n\n0 qid:3 1:1\n", 4, "qid 3 comes after qid 5 (line 1); qids must"),
    ("qid falls, then returns", "1 qid:2 1:1\n1 qid:1 1:1\n1 qid:2 1:1\n", 2, "qid 1 comes after qid 2 (line 1)"),
    ("label not integer", "2 qid:1 1:0.5\n1.5 qid:2 2:3\n", 2, "label 1.5 is not an integer"),
    ("label not number", "2 qid:1 1:0.5\nhigh qid:2 2:3\n", 2, "label 'high' is not a number"),
    ("label nan", "nan qid:1 1:0.5\n", 1, "label nan is not an integer"),
    ("label -inf", "1 qid:1 1:2\n-inf qid:1 1:0.5\n", 2, "label -inf is not an integer"),
    ("qid not integer", "2 qid:1.5 1:0.5\n", 1, "qid 1.5 is not an integer"),
    ("qid not number", "2 qid:x 1:0.5\n", 1, "qid 'x' is not a number"),
    ("qid empty", "2 qid:1 1:0.5\n2 qid: 1:0.5\n", 2, "qid '' is not a number"),
    ("qid on some rows", "2 qid:1 1:0.5\n1 2:3\n", 2, "line 1 has qid: but line 2 has none"),
    ("qid on later rows", "2 1:0.5\n# c\n1 qid:1 2:3\n", 3, "line 3 has qid: but line 1 has none"),
    ("qid late", "2 qid:1 1:0.5\n1 qid:2 2:3 qid:2\n", 2, "'qid:2': qid: must come right after the label"),
    ("qid uppercase", "2 QID:1 1:0.5\n", 1, "feature index in 'QID:1': 'QID' is not a number"),
    ("no label", "2 qid:1 1:0.5\nqid:2 2:3\n", 2, "expected a label first, found 'qid:2'"),
    ("no label, feature", "2 qid:1 1:0.5\n4:3 2:3\n", 2, "expected a label first, found '4:3'"),
    ("garbage token", "2 qid:1 1:0.5\n2 qid:1 1:0.5 foo\n", 2, "malformed feature 'foo', expected index:value"),
    ("stray number", "2 qid:1 1:0.5 7 2:1\n", 1, "malformed feature '7', expected index:value"),
    ("two colons", "2 qid:1 1:0.5\n1 qid:2 2:3:4\n", 2, "malformed feature '2:3:4', expected index:value"),
    ("bad value", "2 qid:1 1:0.5\n1 qid:2 2:0x1\n", 2, "feature value in '2:0x1': '0x1' is not a number"),
    ("empty value", "2 qid:1 1:\n", 1, "feature value in '1:': '' is not a number"),
    ("empty index", "2 qid:1 :1\n", 1, "feature index in ':1': '' is not a number"),
    ("index 0, 1-based", "2 qid:1 1:1\n1 qid:1 0:0.5\n", 2, "feature index 0 is below 1 (1-based indices;"),
    ("negative index", "2 qid:1 -1:0.5\n", 1, "feature index -1 is below 1"),
    ("fractional index", "1 qid:1 2.5:3\n", 1, "feature index 2.5 is not an integer"),
    ("huge index", "1 qid:1 3000000000:3\n", 1, "feature index 3000000000 is too large"),
    ("earliest error wins", "1 qid:1 x:1\n1 qid:1 2:3:4\n", 1, "feature index in 'x:1': 'x' is not a number"),
    ("non-ascii", "1 qid:1 2:3\n1 qid:1 2:3\u00a0\n", 2, "feature value in '2:3\\xa0': '3\\xa0' is not a"),
]


@pytest.mark.parametrize(("text", "line", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(InputError) as caught:
        read_svmlight(path)
    text_of = str(caught.value)
    assert "\n" not in text_of
    assert text_of.startswith(f"{path}:{line}: "), text_of
    assert message in text_of
    with pytest.raises(InputError) as careful:  # the careful parser alone says the same
        read_careful(path)
    assert str(careful.value) == text_of


def read_careful(path: Path, **options) -> LtrData:
    """read_svmlight with the fast path turned off."""
    from rankwise.ltr import svmlight

    original = svmlight._parse_fast
    svmlight._parse_fast = lambda text: (_ for _ in ()).throw(svmlight._Irregular())
    try:
        return read_svmlight(path, **options)
    finally:
        svmlight._parse_fast = original


def test_width_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "w.txt", "1 qid:1 1:1 5:2\n0 qid:1 7:1\n")
    assert read_svmlight(path).num_features == 7
    assert read_svmlight(path, num_features=10).dense().shape == (2, 10)
    with pytest.raises(InputError, match=r"w\.txt:2: feature index 7 is beyond num_features=6 \(largest allowed 6\)"):
        read_svmlight(path, num_features=6)
    with pytest.raises(InputError, match=r"w\.txt:1: feature index 5 is beyond num_features=5 \(largest allowed 4\)"):
        read_svmlight(path, num_features=5, zero_based=True)
    with pytest.raises(RankwiseError, match="zero_based must be"):
        read_svmlight(path, zero_based="yes")
    with pytest.raises(RankwiseError, match="num_features must be"):
        read_svmlight(path, num_features=2.5)


def test_zero_based_auto(tmp_path: Path) -> None:
    zero = write(tmp_path / "z.txt", "1 qid:1 0:1 2:2\n")
    one = write(tmp_path / "o.txt", "1 qid:1 1:1 2:2\n")
    assert read_svmlight(zero, zero_based="auto").indices.tolist() == [0, 2]
    assert read_svmlight(one, zero_based="auto").indices.tolist() == [0, 1]
    assert read_svmlight(one, zero_based=True).indices.tolist() == [1, 2]
    both = read_svmlight_files([zero, one], zero_based="auto")
    assert [d.indices.tolist() for d in both] == [[0, 2], [1, 2]]
    assert [d.num_features for d in both] == [3, 3]


def test_files_share_width(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", "1 qid:1 1:1 9:2\n")
    b = write(tmp_path / "b.txt", "1 qid:1 3:1\n")
    assert [d.num_features for d in read_svmlight_files([a, b])] == [9, 9]
    assert [d.num_features for d in read_svmlight_files([a, b], num_features=12)] == [12, 12]


def test_empty_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"e\.txt: no data lines"):
        read_svmlight(write(tmp_path / "e.txt", "# only a comment\n\n  \n"))
    with pytest.raises(InputError, match=r"e\.txt: no data lines"):
        read_svmlight(write(tmp_path / "e.txt", ""))
    with pytest.raises(InputError, match="no such file"):
        read_svmlight(tmp_path / "missing.txt")


def test_ltrdata_checks_its_arrays() -> None:
    good = {
        "labels": [1, 0],
        "qids": [3],
        "group_offsets": [0, 2],
        "indptr": [0, 1, 2],
        "indices": [0, 2],
        "values": [0.5, 1.0],
        "num_features": 3,
    }
    data = LtrData(**good)
    assert data.indices.dtype == np.int32 and data.labels.dtype == np.int64
    for change, message in [
        ({"indptr": [0, 2, 1]}, "indptr must be CSR offsets"),
        ({"group_offsets": [0, 1]}, "group_offsets must be"),
        ({"values": [1.0]}, "values has 1 entries"),
        ({"num_features": 2}, "feature columns must lie in"),
        ({"labels": [[1, 0]]}, "one-dimensional"),
    ]:
        with pytest.raises(RankwiseError, match=message):
            LtrData(**{**good, **change})
    mine = np.array([1, 0])
    LtrData(**{**good, "labels": mine})
    assert mine.flags.writeable  # the caller's array is copied, not frozen


# ---------------------------------------------------------------------------------------------------------------
# Writing and round trips


def test_write_layouts(tmp_path: Path) -> None:
    data = read_svmlight(write(tmp_path / "in.txt", "2 qid:7 3:0.25 1:70\n0 qid:7\n1 qid:9 2:-0.0 4:1e-300\n"))
    write_svmlight(data, tmp_path / "out.txt")
    assert (tmp_path / "out.txt").read_text() == "2 qid:7 1:70 3:0.25\n0 qid:7\n1 qid:9 2:-0 4:1e-300\n"
    write_svmlight(data, tmp_path / "lgb.txt", query_file=True, zero_based=True)
    assert (tmp_path / "lgb.txt").read_text() == "2 0:70 2:0.25\n0\n1 1:-0 3:1e-300\n"
    assert (tmp_path / "lgb.txt.query").read_text() == "2\n1\n"
    back = read_svmlight(tmp_path / "lgb.txt", zero_based=True, num_features=4)
    assert back.qids.tolist() == [0, 1]  # groups from a .query file are numbered
    same(back, data, tuple(f for f in FIELDS if f != "qids"))
    write_svmlight(data, tmp_path / "scores.txt", labels=[0.5, 1, 2.25])
    assert (tmp_path / "scores.txt").read_text().splitlines()[0] == "0.5 qid:7 1:70 3:0.25"
    with pytest.raises(InputError, match="2 labels for 3 rows"):
        write_svmlight(data, tmp_path / "x.txt", labels=[1, 2])


def test_gzip_round_trip(tmp_path: Path) -> None:
    data = read_svmlight(write(tmp_path / "in.txt", "2 qid:7 3:0.25 1:70\n0 qid:7 2:1\n"))
    write_svmlight(data, tmp_path / "out.txt.gz")
    assert gzip.decompress((tmp_path / "out.txt.gz").read_bytes()).startswith(b"2 qid:7 1:70")
    same(read_svmlight(tmp_path / "out.txt.gz"), data)


floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1, 1),
    st.integers(-1000, 1000).map(float),
    st.sampled_from([0.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3]),
)


@st.composite
def ltr_data(draw: st.DrawFn) -> LtrData:
    width = draw(st.integers(1, 30))
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=8))
    rows = sum(sizes)
    row_columns = [sorted(draw(st.sets(st.integers(0, width - 1), max_size=min(width, 6)))) for _ in range(rows)]
    nnz = sum(len(c) for c in row_columns)
    values = draw(st.lists(floats, min_size=nnz, max_size=nnz))
    qids = draw(st.lists(st.integers(-(2**40), 2**40), min_size=len(sizes), max_size=len(sizes), unique=True))
    docnos = None
    if draw(st.booleans()):  # unique within each group; the same name may recur across groups
        names = st.text(st.characters(blacklist_categories=["Z", "C"]), min_size=1, max_size=8)
        docnos = [name for size in sizes for name in draw(st.lists(names, min_size=size, max_size=size, unique=True))]
    return LtrData(
        labels=draw(st.lists(st.integers(-3, 30), min_size=rows, max_size=rows)),
        qids=qids,
        group_offsets=np.cumsum([0, *sizes]),
        indptr=np.cumsum([0] + [len(c) for c in row_columns]),
        indices=[c for columns in row_columns for c in columns],
        values=values,
        num_features=width,
        docnos=docnos,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=ltr_data(), query_file=st.booleans(), zero_based=st.booleans())
def test_round_trip(tmp_path: Path, data: LtrData, query_file: bool, zero_based: bool) -> None:
    path = tmp_path / "rt.txt"
    write_svmlight(data, path, query_file=query_file, zero_based=zero_based)
    doc_ids = "position" if data.docnos is None else "comment"
    back = read_svmlight(path, num_features=data.num_features, zero_based=zero_based, query_file=query_file,
                         qid_order="any", doc_ids=doc_ids)  # fmt: skip
    assert back.doc_ids().to_list() == data.doc_ids().to_list()
    if not query_file and np.all(np.diff(data.qids) > 0):
        same(read_svmlight(path, num_features=data.num_features, zero_based=zero_based, doc_ids=doc_ids), back)
    if query_file:  # groups from a .query file are numbered 0, 1, ...
        assert back.qids.tolist() == list(range(data.num_groups))
    same(back, data, tuple(f for f in FIELDS if f != "qids" or not query_file))


# Random text, valid or not: the fast path agrees with the careful per-line parser, result or error.
TOKENS = st.sampled_from(
    [
        "1:0.5",
        "2:-3",
        "3:1e-5",
        "7:70",
        "2:.5",
        "4:NaN",
        "5:-inf",
        "0:1",
        "1:",
        ":1",
        "x",
        "1:2:3",
        "qid:4",
        "qid:x",
        "QID:1",
        "#",
        "# c 1:2",
        "3",
        "2.5:1",
        "1:0x3",
        "-inf",
        "-inf:1",
        "nan",
    ]
)
LABELS = st.sampled_from(["0", "1", "4", "2.0", "-1", "1.5", "nan", "qid:1", "1:2", ""])
SPACES = st.sampled_from([" ", " ", " ", "  ", "\t", " \r"])


@st.composite
def svmlight_text(draw: st.DrawFn) -> bytes:
    use_qid = draw(st.booleans())
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(["", "  ", "# comment", "\t# x:1 qid:3"])))
            continue
        tokens = [draw(LABELS)]
        if use_qid and draw(st.integers(0, 12)):
            tokens.append(f"qid:{draw(st.integers(1, 4))}")
        tokens += draw(
            st.lists(TOKENS if kind == 1 else st.sampled_from(["1:0.5", "2:-3", "3:7", "9:1e3"]), max_size=5)
        )
        line = "".join(token + draw(SPACES) for token in tokens)
        lines.append(line.rstrip() if draw(st.booleans()) else line)
    return "\n".join(lines).encode() + draw(st.sampled_from([b"", b"\n", b"\n\n"]))


@settings(max_examples=400, deadline=None)
@given(text=svmlight_text())
def test_fast_path_agrees_with_careful_parser(text: bytes) -> None:
    def outcome(parse):
        try:
            rows = parse()
        except InputError as exc:
            return str(exc)
        return (
            rows.labels.tobytes(),
            None if rows.qids is None else rows.qids.tobytes(),
            rows.indptr.tolist(),
            rows.indices.tobytes(),
            rows.values.tobytes(),
            rows.lines.tolist(),
        )

    text = re.sub(rb"#[^\n]*", b"", text)
    assert outcome(lambda: _parse(text, "f")) == outcome(lambda: _parse_carefully(text, "f"))


def test_fast_path_is_taken(tmp_path: Path) -> None:
    """Ordinary files (comments, CRLF, runs of spaces) never fall back to the per-line parser."""
    rng = np.random.default_rng(9)
    dense, labels, qids = generated(rng)
    for options in ({}, {"comments": True}, {"messy": True}):
        text = render(dense, labels, qids, rng, **options).encode()
        rows = _parse_fast(re.sub(rb"#[^\n]*", b"", text))
        assert len(rows.labels) == len(labels)


# ---------------------------------------------------------------------------------------------------------------
# Shared data: LightGBM's lambdarank example, TF-Ranking's toy data


def shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found (shared test data lives in ../shared next to the repository)")
    return path


@pytest.mark.parametrize(("name", "rows", "groups"), [("rank.train", 3005, 201), ("rank.test", 768, 50)])
def test_lightgbm_lambdarank_example(name: str, rows: int, groups: int) -> None:
    path = shared("lambdarank", name)
    data = read_svmlight(path, num_features=300)  # its .query file is found next to it
    assert (data.num_rows, data.num_groups) == (rows, groups)
    sizes = np.loadtxt(str(path) + ".query", dtype=np.int64)
    assert np.array_equal(data.group_sizes, sizes)
    assert set(np.unique(data.labels)) <= {0, 1, 2, 3, 4}
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_svmlight_file(str(path), n_features=300, zero_based=False)
    assert (data.to_scipy() != X).nnz == 0 and np.array_equal(data.labels, y)


def test_lightgbm_files_share_width() -> None:
    train, test = read_svmlight_files([shared("lambdarank", "rank.train"), shared("lambdarank", "rank.test")])
    assert train.num_features == test.num_features == 300


def test_tf_ranking_toy_repeated_indices() -> None:
    """TF-Ranking's libsvm parser assigns into a dict: of repeated indices the last one wins."""
    train = read_svmlight(shared("tfr_toy", "train.txt"))
    assert (train.num_rows, train.num_groups, train.num_features) == (119, 27, 136)
    assert train.qids[:3].tolist() == [1, 2, 3]
    # line 1: 0 qid:1 115:-0.617277 5:-0.109573 17:-0.763873 17:0.369905 68:-0.257625 ... (17 twice)
    row0 = {
        5: -0.109573,
        13: -0.929646,
        17: 0.369905,
        42: -0.983709,
        63: -0.987756,
        68: -0.257625,
        69: 0.111284,
        79: 0.790958,
        82: 0.094344,
        84: -0.205543,
        107: 0.956571,
        110: 0.734393,
        115: -0.617277,
        125: 0.570188,
        131: -0.495995,
        133: -0.836065,
        135: -0.928225,
        136: -0.088640,
    }
    start, end = train.indptr[0], train.indptr[1]
    assert dict(zip((train.indices[start:end] + 1).tolist(), train.values[start:end].tolist())) == row0
    expected = np.zeros(136)
    expected[np.array(list(row0)) - 1] = list(row0.values())
    assert np.array_equal(train.dense(np.float64)[0], expected)
    # line 5 (qid:2): 24, 127 and 28 each appear twice
    line5 = train.dense(np.float64)[4]
    assert (line5[23], line5[126], line5[27]) == (0.468720, 0.932992, -0.759433)
    vali, test = read_svmlight(shared("tfr_toy", "vali.txt")), read_svmlight(shared("tfr_toy", "test.txt"))
    assert vali.num_rows == test.num_rows == 36
    same(read_svmlight(shared("tfr_toy", "test.txt"), num_features=vali.num_features), vali)


def test_tf_ranking_toy_round_trip(tmp_path: Path) -> None:
    train = read_svmlight(shared("tfr_toy", "train.txt"))
    write_svmlight(train, tmp_path / "t.txt")
    same(read_svmlight(tmp_path / "t.txt", num_features=136), train)


def test_polars_frames_are_plain(tmp_path: Path) -> None:
    data = read_svmlight(write(tmp_path / "p.txt", "1 qid:2 1:1\n0 qid:2 1:2\n"))
    assert data.to_qrels().schema == pl.Schema({"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64})
    assert data.to_run([1, 2]).schema == pl.Schema({"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64})


def test_qid_order_option(tmp_path: Path) -> None:
    first = write(tmp_path / "a.txt", "1 qid:1 1:1\n0 qid:2 2:1\n")
    second = write(tmp_path / "b.txt", "1 qid:9 1:1\n0 qid:4 3:1\n")
    with pytest.raises(InputError, match=r"b.txt:2: qid 4 comes after qid 9"):
        read_svmlight_files([first, second])
    a, b = read_svmlight_files([first, second], qid_order="any")
    assert b.qids.tolist() == [9, 4] and a.num_features == b.num_features == 3
    with pytest.raises(RankwiseError, match="qid_order must be one of 'increasing', 'any', not 'sorted'"):
        read_svmlight(first, qid_order="sorted")


LETOR = (
    "2 qid:10 1:0.5 2:0.1 #docid = GX000-00-0000000 inc = 1 prob = 0.0246906\r\n"
    "0 qid:10 1:0.2 2:0.3 #docid = GX000-00-0000001 inc = 1 prob = 0.1\n"
    "# a whole-line comment\n"
    "1 qid:12 1:0.9\t#docid=GX9\n"
    "0 qid:12 2:0.4 # 7555 rambo\n"
    "3 qid:13 2:1 # GX000-00-0000000\n"
)


@pytest.mark.parametrize("gz", [False, True])
def test_doc_ids_from_comments(tmp_path: Path, gz: bool) -> None:
    """LETOR's '#docid = ID' and RankLib's '# ID query' name the documents; they survive a write and a read."""
    path = tmp_path / ("letor.txt.gz" if gz else "letor.txt")
    path.write_bytes(gzip.compress(LETOR.encode()) if gz else LETOR.encode())
    data = read_svmlight(path, doc_ids="comment")
    names = ["GX000-00-0000000", "GX000-00-0000001", "GX9", "7555", "GX000-00-0000000"]
    assert data.docnos.tolist() == names
    assert data.to_qrels().rows() == [("10", names[0], 2), ("10", names[1], 0), ("12", "GX9", 1), ("12", "7555", 0),
                                      ("13", names[0], 3)]  # fmt: skip
    assert data.to_run([0.5, 0.25, 1, 2, 3])["doc_id"].to_list() == names
    assert read_svmlight(path).doc_ids().to_list() == ["0", "1", "0", "1", "0"]  # by position unless asked
    assert data.select_groups([1]).docnos.tolist() == ["GX9", "7555"]
    with pytest.raises(ValueError):
        data.docnos[0] = "x"  # read-only
    written = tmp_path / "written.txt"
    write_svmlight(data, written)
    assert written.read_text().splitlines()[2] == "1 qid:12 1:0.9 #docid = GX9"
    back = read_svmlight(written, doc_ids="comment")
    same(back, data)
    assert back.docnos.tolist() == names
    (a, b) = read_svmlight_files([path, written], doc_ids="comment")
    assert a.docnos.tolist() == b.docnos.tolist() == names


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 qid:1 1:1 # a\n\n1 qid:1 1:1\n", "bad.txt:3: no document id in a trailing comment"),
        ("1 qid:1 1:1 #   \n", "bad.txt:1: no document id in a trailing comment"),
        ("1 qid:1 1:1 # a\n1 qid:2 1:1 # a\n\n1 qid:2 1:1 #docid = a\n", "bad.txt:4: document 'a' of qid 2 is already "
         "at line 2"),
    ],
)  # fmt: skip
def test_doc_id_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        read_svmlight(write(tmp_path / "bad.txt", text), doc_ids="comment")


def test_doc_ids_checked_in_memory_and_on_writing(tmp_path: Path) -> None:
    data = read_svmlight(write(tmp_path / "ok.txt", "1 qid:1 1:1\n0 qid:1 1:2\n"))
    with pytest.raises(RankwiseError, match="docnos must be one str per row"):
        LtrData(*(getattr(data, f) for f in FIELDS), num_features=1, docnos=["a"])
    with pytest.raises(RankwiseError, match="docnos must be one str per row"):
        LtrData(*(getattr(data, f) for f in FIELDS), num_features=1, docnos=["a", 2])
    with pytest.raises(RankwiseError, match="document id 'a' of row 1 occurs twice in its group"):
        LtrData(*(getattr(data, f) for f in FIELDS), num_features=1, docnos=["a", "a"])
    spaced = LtrData(*(getattr(data, f) for f in FIELDS), num_features=1, docnos=["a b", "c"])
    with pytest.raises(InputError, match="document id 'a b' cannot be written as a comment"):
        write_svmlight(spaced, tmp_path / "out.txt")
    with pytest.raises(RankwiseError, match="doc_ids must be one of 'position', 'comment', not 'docno'"):
        read_svmlight(tmp_path / "ok.txt", doc_ids="docno")
