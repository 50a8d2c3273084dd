"""One way through the house: every import of the package goes to a module of the same or a
lower layer, and no module imports itself back through others (no import cycle).

    core       errors, sizes, types, values, primitive, expr, primitives, typecheck, nesting,
               domain, layout
    language   notation, semantics, inputs, programs
    rewriting  the rewriting engine (rewriting: patterns, strategies, what a rule is, the
               catalogue, applying a rule), the rules, derivation; the engine imports no
               rule
    codegen    codegen
    running    the devices (device: found and probed, locks, isolation, host arrays), runtime,
               run on one device, the memory guard, the devices' ceilings
    several    one program on several devices (several: distributions, the several-device
               run above the one-device run, Dask clusters of pinned workers)
    searching  search, plots
    using      cli, the case studies (studies: the demo, the reductions), the catalogue
               listing, the package's public surface; widgets and benchmarks

Imports are read from the source (module level and inside functions alike), so a deferred
import does not hide a backward edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parent.parent
LAYERS = [
    ("core", ["errors", "sizes", "types", "values", "primitive", "expr", "primitives",
              "typecheck", "nesting", "domain", "layout"]),
    ("language", ["notation", "semantics", "inputs", "programs"]),
    ("rewriting", ["rewriting", "rules", "derivation"]),
    ("codegen", ["codegen"]),
    ("running", ["device", "runtime", "rates", "run", "memory", "ceilings"]),
    ("several", ["several"]),
    ("searching", ["search", "plots"]),
    ("using", ["cli", "studies", "__main__", "", "catalogue", "widgets", "benchmarks"]),
]


def modules() -> dict[str, Path]:
    """Module name -> file, for the core package, the widgets and the benchmarks."""
    out = {}
    for package in ("workbench", "widgets", "benchmarks"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
            out[name.removesuffix(".__init__")] = path
    return out


def layer_of(module: str) -> int:
    if module.startswith(("widgets", "benchmarks")):
        return len(LAYERS) - 1
    rest = module.removeprefix("workbench").removeprefix(".")
    top = rest.split(".", 1)[0]
    for i, (_, names) in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``module`` imports (a name imported from a package that
    is itself a module counts as that module)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                name = f"{target}.{alias.name}"
                out.add(name if name in known else target)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in known and m != module}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def test_every_module_has_a_layer():
    for module in modules():
        layer_of(module)


def test_no_module_imports_from_a_higher_layer():
    backward = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
                      for m, deps in graph().items() for d in deps if layer_of(d) > layer_of(m))
    assert not backward, "\n".join(backward)


def test_no_import_cycle():
    g = graph()
    # a package's __init__ gathers its modules: an edge from a module to its own package is
    # a cycle through that __init__
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(g[m]):
            if state.get(d) == 1:
                cycles.append(" -> ".join(stack[stack.index(d):] + [m, d])
                              if d in stack else f"{m} -> {d}")
            elif d not in state:
                visit(d, stack + [m])
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m, [])
    assert not cycles, "\n".join(cycles)


def package_of(module: str) -> str:
    """The part of the house a module belongs to: a subpackage or top module of workbench
    (``rewriting``, ``rules``, ``codegen``, ``expr``, …; the package's own ``__init__`` is
    ``workbench``), the widgets, the benchmarks."""
    parts = module.split(".")
    if parts[0] != "workbench":
        return parts[0]
    return parts[1] if len(parts) > 1 else "workbench"


def test_no_import_cycle_between_packages():
    # the modules' graph seen from afar: a package that imports another which imports it
    # back (even through modules without a cycle between them) is not one way through
    packages: dict[str, set[str]] = {}
    for m, deps in graph().items():
        packages.setdefault(package_of(m), set()).update(
            package_of(d) for d in deps if package_of(d) != package_of(m))
    cycles = set()

    def visit(p: str, stack: list[str]) -> None:
        for d in sorted(packages.get(p, ())):
            if d in stack:
                cycle = stack[stack.index(d):] + [p]
                first = cycle.index(min(cycle))  # one spelling of each cycle
                cycles.add(" -> ".join(cycle[first:] + cycle[:first] + [min(cycle)]))
            elif d not in done:
                visit(d, stack + [p])
        done.add(p)

    done: set[str] = set()
    for p in sorted(packages):
        visit(p, [])
    assert not cycles, "\n".join(sorted(cycles))


def test_the_rewriting_engine_imports_no_rule():
    # as ELEVATE's strategy language knows no RISE rule: what a rule is and the catalogue
    # are the engine's (rewriting.rule, rewriting.registry), and the rules import them
    found = sorted(f"{m} imports {d}" for m, deps in graph().items()
                   if m.startswith("workbench.rewriting") for d in deps
                   if d.startswith("workbench.rules"))
    assert not found, "\n".join(found)


def test_nothing_imports_private_names_of_another_module():
    known = modules()
    found = []
    for m, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or node.level):
                private = [a.name for a in node.names
                           if a.name.startswith("_") and not a.name.startswith("__")]
                if private:
                    found.append(f"{m}: from {'.' * node.level}{node.module or ''} import "
                                 f"{', '.join(private)}")
    assert not found, "\n".join(found)
