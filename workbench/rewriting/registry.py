"""The catalogue of rules by name: ``workbench.rules`` registers the rules of its modules in
it, and ``register`` adds a user's own (SPEC 5; the own-rule notebook shows one). ``rewrites``
and ``apply`` and saved derivations look rules up here, knowing no rule module."""

from __future__ import annotations

from .rule import Rule

rules: list[Rule] = []  # in the order they are listed
CATALOGUE: dict[str, Rule] = {}


def register(rule: Rule, *, replace: bool = False) -> None:
    """Add a rule of your own to the catalogue, so that ``rewrites``, ``apply`` and saved
    ``Derivation``s find it by name."""
    if not isinstance(rule, Rule):
        raise TypeError(f"register takes a Rule, not a {type(rule).__name__}")
    if rule.name in CATALOGUE:
        if not replace:
            raise ValueError(f"a rule named {rule.name!r} exists: pass replace=True to "
                             f"replace it")
        rules[:] = [r for r in rules if r.name != rule.name]
    rules.append(rule)
    CATALOGUE[rule.name] = rule


def unregister(name: str) -> None:
    """Remove a rule added with ``register``."""
    rules[:] = [r for r in rules if r.name != name]
    CATALOGUE.pop(name, None)
