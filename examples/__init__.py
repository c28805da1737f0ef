"""Runnable examples that sit beside the framework rather than inside it."""
