"""Testing aids with no Kubernetes counterpart: fault injection, deadlines on plugin calls, steps.

The reliability tests and ``python -m framework simulate --faults`` use them
to make plugins and the API server misbehave on purpose, and tests log the
loop's steps by name (:mod:`.steps`); the scheduler's own packages never
import them.
"""
