"""One scheduling rule, twice: as a scheduler extender (a web service) and as a plugin.

* :mod:`examples.extender.rule` — the rule itself, on a node's labels;
* :mod:`examples.extender.server` — the rule as an extender, over HTTP;
* :mod:`examples.extender.plugin` — the rule as an out-of-tree Filter and Score plugin.
"""
