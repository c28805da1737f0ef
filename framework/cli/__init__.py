"""The programs: ``python -m framework <command>``, the demo, and chapter 1's naive scheduler.

Everything here drives the framework from the outside (argument parsing,
files, signals, printing); nothing in the scheduler's own packages imports it.
"""
