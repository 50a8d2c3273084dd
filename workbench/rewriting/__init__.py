"""The rewriting engine, apart from the rules it applies (as ELEVATE's strategy language is
apart from RISE's rules): ``site`` (where a rule is tried, and ``Refused``), ``match``
(left-hand sides as patterns that report the first mismatch), ``rule`` (what a rule is:
``Rule``, ``RuleParam``, its tags), ``registry`` (the catalogue of rules by name),
``application`` (``rewrites``, ``apply``, ``refusals``: a rule tried at a site, its result
type-checked and put in place), ``step`` (one rewrite step), ``strategies`` (ELEVATE's
combinators, traversals and locations), ``macro`` (a macro: a strategy over basic rules, run
on a copy of its site) and ``expansion`` (a macro step's basic steps in the whole
expression).

The engine imports no rule: ``workbench.rules`` writes the rules with it, registers them in
the catalogue, and re-exports ``rewrites``, ``apply`` and the rest of the public surface.
"""
