"""Write the two extra example runs bundled for ``rankwise compare`` (``src/rankwise/examples/run_rm3.txt`` and
``run_dense.txt``), derived deterministically from ``run.txt`` and ``qrels.txt``.

Each is the BM25 demo run with its scores changed: ``rm3-demo`` adds to every judged-relevant document a boost
proportional to its grade, plus seeded noise (a better system on most queries); ``dense-demo`` re-scores with
seeded noise only (a system that differs without being better). Run from the repository root::

    python benchmarks/make_example_runs.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "rankwise" / "examples"


def read_rows(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def write_run(name: str, tag: str, boost_per_grade: float, noise: float, seed: int) -> None:
    grades = {(q, d): int(g) for q, _, d, g in read_rows(EXAMPLES / "qrels.txt")}
    rows = read_rows(EXAMPLES / "run.txt")
    rng = np.random.default_rng(seed)
    scores = np.array([float(r[4]) for r in rows])
    boost = np.array([max(grades.get((r[0], r[2]), 0), 0) for r in rows]) * boost_per_grade
    new_scores = np.round(scores + boost + rng.normal(0.0, noise, len(rows)), 2)
    lines = [f"# rankwise example run derived from run.txt by benchmarks/make_example_runs.py ({tag})"]
    for query in dict.fromkeys(r[0] for r in rows):
        members = [i for i, r in enumerate(rows) if r[0] == query]
        ordered = sorted(members, key=lambda i: (-new_scores[i], rows[i][2]))
        lines.extend(f"{query} Q0 {rows[i][2]} {rank} {new_scores[i]:.2f} {tag}" for rank, i in enumerate(ordered, 1))
    (EXAMPLES / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_run("run_rm3.txt", "rm3-demo", boost_per_grade=1.5, noise=1.0, seed=1)
    write_run("run_dense.txt", "dense-demo", boost_per_grade=0.0, noise=2.5, seed=2)
