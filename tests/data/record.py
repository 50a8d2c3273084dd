"""Record again the search logs that the strategy tests replay:

    python -m tests.data.record

A replay draws the same candidates only with the same rule catalogue (and, for the guided
search, the same cost-model priors in workbench/search/calibration.json), so run this
whenever rules or priors change (on the CPU default; the tests replay with
RECORDED_BUDGET)."""

from pathlib import Path

from workbench.programs import library
from workbench.search import search

DATA = Path(__file__).parent
BUDGET = 24

if __name__ == "__main__":
    for strategy in ("mcts", "random", "guided"):
        log = DATA / f"asum_4096_{strategy}.jsonl"
        log.unlink(missing_ok=True)
        result = search(library("blas")["asum"], "[float]_4096", strategy=strategy,
                        budget=BUDGET, workers=2, repeat=3, log=log)
        print(f"{log.name}: {result.evaluated} candidates, best {result.best_kernel_ms} ms")
