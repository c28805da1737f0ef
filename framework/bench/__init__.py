"""The benchmark: scheduler_perf's workloads run through the real scheduler (issue 8).

:mod:`.workload` reads ``benchmarks/performance-config.yaml``;
:mod:`.throughput` computes SchedulingThroughput as scheduler_perf does;
:mod:`.runner` runs a workload on the fake API server with the Scheduler;
:mod:`.cli` is ``python -m framework bench``.
"""
