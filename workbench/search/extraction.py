"""The e-graph's programs as the ``egraph`` strategy sees them, iteration by iteration: the
strategy's rules (``egraph.saturation_rules``, vectors only of the widths the device runs)
and an extraction by the device's cost model — terms of the root e-class drawn as the
strategy draws them (``EGraph.sample``), each completed by the default lowering and its
kernel's time predicted at the run sizes, the fastest predicted first. What
``rewriting.iterations.saturation_report`` reports round by round, and the widget's e-graph
panel shows.

    >>> report = watch_saturation(parse("reduce (+) 0 ∘ map abs"), "[float]_N",
    ...                           sizes={"N": 4096}, rounds=2)      # doctest: +SKIP
    >>> [(i.nodes, i.program, i.cost) for i in report.iterations]   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable

from ..codegen.program import opencl
from ..errors import WorkbenchError
from ..expr import Expr
from ..notation import parse_type
from ..rewriting.egraph import EGraph
from ..rewriting.iterations import Extraction, Iteration, SaturationReport, saturation_report
from ..types import Type
from . import cost
from .egraph import saturation_rules
from .evaluation import KERNEL_NAME
from .space import fits_device

UNIT = "ms predicted"


class CostExtraction:
    """Ranks ``sample`` terms of the root e-class by the time ``model`` predicts for their
    default completion at ``sizes``; a term that cannot be completed or generated is left
    out. Predictions are kept by term, so a term met again is not compiled again; the
    terms ranked in a graph before stay in the ranking as it grows (they are still terms of
    its root e-class), so the best predicted never gets worse from one round to the next."""

    unit = UNIT

    def __init__(self, types: tuple, model: cost.CostModel, sizes: dict[str, int] | None = None,
                 sample: int = 40, seed: object = 0):
        self.types = tuple(types)
        self.model = model
        self.sizes = dict(sizes or {})
        self.sample = sample
        self.seed = seed
        self.known: dict[str, float | None] = {}
        self.graph: EGraph | None = None
        self.met: dict[str, Expr] = {}  # the terms ranked in ``graph`` so far

    def cost(self, term: Expr) -> float | None:
        """The time predicted for ``term``'s kernel (None: it has none at these sizes)."""
        text = str(term)
        if text not in self.known:
            try:
                program = opencl(term, *self.types, sizes=self.sizes, complete=True,
                                 name=KERNEL_NAME)
                self.known[text] = self.model.predict(self.model.features(program))
            except WorkbenchError:  # no kernel at these sizes: not a candidate
                self.known[text] = None
        return self.known[text]

    def __call__(self, graph: EGraph) -> list[Extraction]:
        if graph is not self.graph:
            self.graph, self.met = graph, {}
        drawn = graph.sample(self.sample, f"{self.seed}/{len(graph.rounds)}")
        self.met.update((str(t), t) for t in drawn)
        timed = [(self.cost(t), t) for t in self.met.values()]
        ranked = sorted(((ms, str(t), t) for ms, t in timed if ms is not None),
                        key=lambda x: x[:2])
        return [Extraction(t, ms, UNIT) for ms, _, t in ranked]


def watch_saturation(expr: Expr, *input_types: Type | str, sketches: list[str] = (),
                     sizes: dict[str, int] | None = None, device: str | None = None,
                     model: cost.CostModel | None = None, rounds: int = 4,
                     nodes: int = 3000, seconds: float = 60.0, macros: bool = True,
                     sample: int = 40, cancel: Callable[[], bool] | None = None,
                     on_iteration: Callable[[Iteration], None] | None = None
                     ) -> SaturationReport:
    """``expr``'s e-graph grown by the ``egraph`` strategy's rules, each round reported
    with the program the device's cost model (``model``, else the device's prior)
    extracts (the shipped CPU prior where no OpenCL device is found); with ``sketches``,
    one saturation per sketch (``saturation_report``)."""
    types = tuple(parse_type(t) if isinstance(t, str) else t for t in input_types)
    model = model or _model_of(device)
    widths = _vector_widths(device)
    extract = CostExtraction(types, model, sizes, sample)
    return saturation_report(expr, types, saturation_rules(macros), sketches=sketches,
                             extract=extract, rounds=rounds, nodes=nodes, seconds=seconds,
                             cancel=cancel, on_iteration=on_iteration,
                             accept=lambda e: fits_device(e, widths))


def _model_of(device: str | None) -> cost.CostModel:
    try:
        return cost.model_for_device(device)
    except WorkbenchError:  # no OpenCL device here: the model of a CPU
        return cost.prior_for("", "cpu")


def _vector_widths(device: str | None) -> tuple[int, ...] | None:
    """The vector widths the device runs, as the strategy takes them (None: any)."""
    from ..device.opencl import find_device

    try:
        return find_device(device)[0].vector_widths or None
    except WorkbenchError:
        return None
