"""Applying rules: ``rewrites`` lists every (path, rule, parameters, result) that applies in
an expression; ``apply`` performs one rewrite or explains why it is refused.

A rewrite is accepted only when its result type-checks where the old node stood: the new
node is applied to the argument types the old one received (recorded by ``annotate``) and
must produce the same type. Lowerings must also keep the OpenCL map nesting valid.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from ..errors import TypeCheckError, WorkbenchError, format_path
from ..expr import Compose, Expr, Path, Prim, compose, keep_signature, replace, subterm
from ..nesting import check_nesting, context
from ..sizes import Size
from ..typecheck import Annotation, Checker, annotate
from ..types import Type
from .registry import CATALOGUE
from .rule import Rule
from .site import Refused, Site
from .step import Step


class RewriteRefused(WorkbenchError):
    """A rule asked for at a place where it does not apply; says which condition failed."""

    def __init__(self, rule: str, path: Path, node_text: str, reason: str):
        self.rule = rule
        self.path = path
        self.reason = reason
        shown = node_text if len(node_text) <= 80 else node_text[:77] + "..."
        super().__init__(f"rule {rule} does not apply at {format_path(path)} `{shown}`: "
                         f"{reason}")


Rewrite = Step  # one applicable rewrite: where, which rule, parameters, and the result


def site_at(expr: Expr, path: Path, note: Annotation | None) -> Site:
    node = subterm(expr, path)
    typing = note.typings.get(path) if note else None
    nxt = nxt_typing = None
    if path:
        parent = subterm(expr, path[:-1])
        if isinstance(parent, Compose) and path[-1] + 1 < len(parent.fns):
            nxt = parent.fns[path[-1] + 1]
            nxt_path = path[:-1] + (path[-1] + 1,)
            nxt_typing = note.typings.get(nxt_path) if note else None
    return Site(expr, path, node, typing, context(expr, path), nxt, nxt_typing)


def _rebuild(site: Site, produced) -> Expr:
    """The whole expression with the rule's output put in place of the node (or pair)."""
    if not isinstance(produced, list):
        return replace(site.root, site.path, produced)
    parent_path, i = site.path[:-1], site.path[-1]
    parent = subterm(site.root, parent_path)
    fns = list(parent.fns[:i]) + produced + list(parent.fns[i + 2:])
    new_parent = compose(*fns) if fns else Prim("id")
    return replace(site.root, parent_path, new_parent)


def _locally_typed(site: Site, produced, note: Annotation | None) -> Refused | None:
    """Refuse a result whose type differs from the old node's (or that does not check)."""
    if note is None:
        return None
    before = site.typing
    args_from = site.next_typing if isinstance(produced, list) else site.typing
    if before is None or args_from is None or not args_from.args:
        return None
    new = (compose(*produced) if produced else Prim("id")) if isinstance(produced, list) \
        else produced
    checker = Checker(new, note.sizes)  # the sizes the input types bind
    try:
        after = checker.apply(new, list(args_from.args), args_from.env, ())
    except TypeCheckError as err:
        return Refused(f"the result does not type-check: {err.reason}")
    if after != before.result:
        return Refused(f"the result has type {after}, the original {before.result}")
    return None


def _nesting_ok(site: Site, produced, rule: Rule) -> Refused | None:
    if rule.category not in ("opencl", "memory", "macro"):
        return None
    new_nodes = produced if isinstance(produced, list) else [produced]
    for node in new_nodes:
        problems = check_nesting(node, site.context, site.path)
        if problems:
            return Refused(problems[0].message)
    return None


def _inside_iterate(root: Expr, path: Path) -> bool:
    node = root
    for step in path:
        if isinstance(node, Prim) and node.name in ("iterate", "loop"):
            return True
        node = node.children()[step]
    return False


def _globally_typed(result: Expr, input_types: tuple) -> Refused | None:
    """The whole result type-checks (needed under iterate and loop, whose function is
    applied to a shrinking array each time while the annotation records its first
    application)."""
    try:
        if input_types:
            annotate(result, *input_types)
        elif getattr(result, "declared_type", None) is not None:
            annotate(result)
    except TypeCheckError as err:
        return Refused(f"the result does not type-check in a later iteration: {err.reason}")
    return None


def try_rule(rule: Rule, site: Site, params: Mapping[str, object],
             note: Annotation | None, input_types: tuple = ()) -> Expr | Refused:
    if rule.pair and site.next is None:
        return Refused("it rewrites a function and the one composed after it (f ∘ g); "
                       "this node has no right neighbour in a composition")
    try:
        produced = rule.rewrite(site, dict(params))
    except TypeCheckError as err:
        return Refused(err.reason)
    if isinstance(produced, Refused):
        return produced
    for check in (_locally_typed(site, produced, note), _nesting_ok(site, produced, rule)):
        if check is not None:
            return check
    result = _rebuild(site, produced)
    if note is not None and _inside_iterate(site.root, site.path):
        # with the definition's signature, its sizes are bound to the given input types
        result = keep_signature(result, site.root)
        problem = _globally_typed(result, tuple(input_types))
        if problem is not None:
            return problem
    return result


class ParameterError(WorkbenchError):
    """A rule parameter that is unknown or not a value of its kind: names the ``rule`` and
    the ``parameter``."""

    def __init__(self, message: str, rule: str, parameter: str):
        super().__init__(message)
        self.rule = rule
        self.parameter = parameter


def coerce_params(rule: Rule, params: Mapping[str, object]) -> dict:
    known = {p.name: p for p in rule.params}
    out = {}
    for name, value in params.items():
        if name not in known:
            names = ", ".join(known) or "none"
            raise ParameterError(f"rule {rule.name} has no parameter {name!r} (its "
                                 f"parameters: {names})", rule.name, name)
        try:
            out[name] = _parameter_value(known[name].kind, value)
        except (ValueError, TypeError, OverflowError) as err:
            kind = {"size": "a size (a number or a size expression such as N/4)",
                    "choice": "a name (one of the rule's choices)"}.get(known[name].kind,
                                                                        "a whole number")
            raise ParameterError(f"rule {rule.name}: parameter {name} = {_short(value)} is not "
                                 f"{kind}: {_short(str(err), 200)}", rule.name, name) from None
    return out


def _parameter_value(kind: str, value: object):
    from ..sizes import MAX_SIZE_CONSTANT, magnitude_refusal, parse_size

    if isinstance(value, bool):
        raise TypeError("a truth value")
    if kind == "choice":  # one of named alternatives (the rule says which)
        if not isinstance(value, str):
            raise TypeError(f"a {type(value).__name__}, not a name")
        return value
    if kind == "size":
        size = parse_size(value) if isinstance(value, str) else Size.of(value)
        reason = magnitude_refusal(size)
        if reason is not None:
            raise ValueError(reason)
        return size
    if isinstance(value, str):
        text = value.strip().lstrip("+-")
        if len(text) > len(str(MAX_SIZE_CONSTANT)):
            raise ValueError(f"a number of {len(text)} digits")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError("not whole")
    number = int(value)
    if abs(number) > MAX_SIZE_CONSTANT:
        raise ValueError("past 64 bits")
    return number


def _short(value: object, width: int = 40) -> str:
    if isinstance(value, int) and value.bit_length() > 128:
        return f"(a number of {value.bit_length()} bits)"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[:width - 13] + f"... ({len(text)} chars)"


def lookup_rule(name: str) -> Rule:
    catalogue = CATALOGUE
    if name not in catalogue:
        import difflib

        close = difflib.get_close_matches(name, list(catalogue), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise WorkbenchError(f"unknown rule {name!r}{hint}")
    return catalogue[name]


def annotation_of(expr: Expr, input_types: tuple) -> Annotation | None:
    if not input_types and getattr(expr, "declared_type", None) is None:
        try:
            return annotate(expr)  # a closed value expression
        except TypeCheckError:
            return None
    return annotate(expr, *input_types)


def apply(expr: Expr, rule: str | Rule, path: Path | str | int, *input_types: Type | str,
          **params) -> Expr:
    """Apply one rule at one place; raises ``RewriteRefused`` with the failed condition."""
    from ..errors import ArgumentError, as_path
    from ..expr import expression_argument

    expression_argument(expr)
    if not isinstance(rule, str) and not (hasattr(rule, "name") and hasattr(rule, "params")):
        raise ArgumentError(f"rule = {rule!r}: give a rule's name (e.g. 'split-join'; "
                            f"rules() lists them) or a Rule", "rule")
    rule = lookup_rule(rule) if isinstance(rule, str) else rule
    path = as_path(path)
    note = annotation_of(expr, input_types)
    site = site_at(expr, path, note)
    values = coerce_params(rule, params)
    missing = [p for p in rule.params if p.name not in values]
    if missing:
        options = {p.name: [str(c) for c in p.candidates(site)] for p in missing}
        raise RewriteRefused(rule.name, path, str(site.node),
                             "give " + ", ".join(f"{k} (e.g. one of {v[:6]})"
                                                 for k, v in options.items()))
    result = try_rule(rule, site, values, note, input_types)
    if isinstance(result, Refused):
        raise RewriteRefused(rule.name, path, str(site.node), result.reason)
    return keep_signature(result, expr)


def rewrites(expr: Expr, *input_types: Type | str, at: Path | str | int | None = None,
             rules: list[Rule] | None = None) -> list[Rewrite]:
    """Every rewrite that applies: for each node (or only ``at``), rule and candidate
    parameters, the result (type-checked where the rewrite happens)."""
    from ..expr import expression_argument

    expression_argument(expr)
    if at is not None:
        from ..errors import as_path

        at = as_path(at)
        subterm(expr, at)  # a path that is not in the expression is named
    note = annotation_of(expr, input_types)
    catalogue = rules if rules is not None else list(CATALOGUE.values())
    from ..expr import walk

    paths = [at] if at is not None else [p for p, _ in walk(expr)]
    found: list[Rewrite] = []
    for path in paths:
        site = site_at(expr, path, note)
        for rule in catalogue:
            if rule.pair and site.next is None or not _has_shape(rule, site):
                continue
            choices = [p.candidates(site) for p in rule.params]
            for combo in itertools.product(*choices):
                params = {p.name: v for p, v in zip(rule.params, combo)}
                result = try_rule(rule, site, params, note, input_types)
                if isinstance(result, Refused):
                    continue
                result = keep_signature(result, expr)
                found.append(Step(rule.name, path, params, result))
    return found


def _has_shape(rule: Rule, site: Site) -> bool:
    """Whether the site has the rule's left-hand side, where the rule states one (its
    rewrite refuses every other site, whatever its parameters): a rule of another shape is
    passed over once per place, not once per choice of its parameters, and its parameters'
    candidates are not listed there (most of a search's time listing moves went to rules
    that did not fit)."""
    if rule.lhs is None:
        return True
    try:
        return rule.lhs.refusal(site) is None
    except TypeCheckError:  # refused as ``try_rule`` refuses it
        return False


def refusals(expr: Expr, path: Path | str | int, *input_types: Type | str) -> dict[str, str]:
    """Why each rule that does not apply at ``path`` is refused there (the widget and
    ``workbench rules --why`` show these)."""
    from ..errors import as_path

    path = as_path(path)
    note = annotation_of(expr, input_types)
    site = site_at(expr, path, note)
    out = {}
    for rule in CATALOGUE.values():
        choices = [p.candidates(site) for p in rule.params]
        if rule.params and not all(choices):
            empty = [p.name for p, c in zip(rule.params, choices) if not c]
            out[rule.name] = _reason_without_candidates(rule, site, empty)
            continue
        reasons = []
        for combo in itertools.product(*choices):
            params = {p.name: v for p, v in zip(rule.params, combo)}
            result = try_rule(rule, site, params, note, input_types)
            if not isinstance(result, Refused):
                break
            reasons.append(result.reason)
        else:
            out[rule.name] = reasons[0] if reasons else "it does not apply here"
    return out


def _reason_without_candidates(rule: Rule, site: Site, empty: list[str]) -> str:
    probe = {p.name: Size.const(1) for p in rule.params}
    try:
        result = rule.rewrite(site, probe)
    except TypeCheckError as err:
        return err.reason
    if isinstance(result, Refused):
        return result.reason
    return f"no value of {', '.join(empty)} fits here"
