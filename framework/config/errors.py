"""What a bad configuration file produces: every problem at once, each with its field path.

A configuration is read in three passes (strict decoding, defaulting,
validation), and a user fixing a file wants all of its problems in one go,
not one per restart. Each problem is a :class:`ConfigProblem` naming the
file, the field (``profiles[0].plugins.score.enabled[1].weight``) and what
is wrong; :class:`ConfigError` carries them all and prints one per line::

    sched.yaml: KubeSchedulerConfiguration: parallelism: Invalid value: 0: should be an integer value greater than zero

Validation messages are rendered as Kubernetes' ``field.Error`` renders
them (``Invalid value: <value>: <detail>``, ``Required value``,
``Duplicate value: <value>``), so each one can be searched for verbatim.

Mirrors how kube-scheduler reports ``utilerrors.Aggregate`` of
``field.Error`` (``k8s.io/apimachinery/pkg/util/validation/field/errors.go``).
Simplified: a compound bad value (a whole plugin set) is printed as JSON,
where Go prints its ``%#v`` struct dump.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from framework.config.types import KIND

__all__ = ["ConfigError", "ConfigProblem"]


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One problem: the source (a file name or ``<string>``), the field path, the message."""

    source: str
    field: str
    message: str

    def __str__(self) -> str:
        parts = [self.source, KIND] if self.source else [KIND]
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)


class ConfigError(ValueError):
    """A configuration that cannot be used; ``problems`` lists every reason, in the order found."""

    def __init__(self, problems: Iterable[ConfigProblem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
