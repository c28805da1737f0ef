"""Testing aids with no Kubernetes counterpart: fault injection and deadlines on plugin calls.

The reliability tests and ``python -m framework simulate --faults`` use them
to make plugins and the API server misbehave on purpose; the scheduler's own
packages never import them.
"""
