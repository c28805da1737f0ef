"""The experiments of chapter "Before the framework": what the alternatives to the framework cost.

* :mod:`~framework.experiments.race` — two schedulers on one cluster race
  for the same room; the kubelets reject the pods that over-commit a node;
* :mod:`~framework.experiments.pools` — nodes split into label pools, one
  per scheduler: pods wait in one pool while the other has room.

Both run on the in-memory API server with simulated time
(:mod:`~framework.experiments.delays` adds a cluster's bind latency and
watch delay), are reproducible by seed, and print a small table:
``python -m framework experiment race|pools``
(:mod:`~framework.cli.experiment`).
"""
