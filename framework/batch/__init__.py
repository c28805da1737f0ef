"""The batch engine: kube-scheduler's decisions, computed with arrays (numpy) instead of per-node calls.

* :mod:`framework.batch.arrays` — the snapshot's nodes as columns, kept up to date;
* :mod:`framework.batch.forms` — the default plugins' Filter and Score, for all nodes at once
  (the volume plugins' in :mod:`framework.batch.volumes`, InterPodAffinity's in
  :mod:`framework.batch.interpodaffinity`, PodTopologySpread's PreScore, Score and
  NormalizeScore in :mod:`framework.batch.podtopologyspread`);
* :mod:`framework.batch.engine` — the search, the scoring and the host selection over them,
  and the differential engine that checks every decision against the reference;
* :mod:`framework.batch.preemption` — DefaultPreemption's search for candidates when no
  node fits, over the same arrays.

Chapter 13 tells why it exists and how it was made exact. Importing it imports numpy;
:mod:`framework.scheduler.engine` chooses it.
"""
