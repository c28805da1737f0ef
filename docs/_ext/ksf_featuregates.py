"""The ``feature-gate-table`` directive: kube-scheduler's gates × releases, from the code's registry.

The table is built at documentation build time from
:data:`framework.featuregate.KUBE_SCHEDULER_FEATURES`, so it cannot drift
from the gates the simulator runs with: one row per gate, one column per
release ``--emulated-version`` accepts, each cell the gate's default and
maturity there (``locked`` when it can no longer be changed, ``—`` before
the gate existed), and a last column saying what the gate changes in this
project (empty when it is not modelled yet).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class FeatureGateTable(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from framework.featuregate import KUBE_SCHEDULER_FEATURES, SUPPORTED_VERSIONS, gate_table

        header = ["Gate", *(f"v{v}" for v in SUPPORTED_VERSIONS), "In this project"]
        rows = [
            [name, *cells, KUBE_SCHEDULER_FEATURES[name].modelled or "not modelled"]
            for name, cells in gate_table()
        ]
        table = nodes.table(classes=["feature-gates"])
        group = nodes.tgroup(cols=len(header))
        table += group
        for width in (3, *(2 for _ in SUPPORTED_VERSIONS), 5):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += self._row(header, literal_first=False)
        body = nodes.tbody()
        group += body
        for row in rows:
            body += self._row(row, literal_first=True)
        return [table]

    @staticmethod
    def _row(cells: list[str], *, literal_first: bool) -> nodes.row:
        row = nodes.row()
        for index, text in enumerate(cells):
            entry = nodes.entry()
            paragraph = nodes.paragraph()
            if index == 0 and literal_first:
                paragraph += nodes.literal(text=text)
            else:
                paragraph += nodes.Text(text)
            entry += paragraph
            row += entry
        return row


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("feature-gate-table", FeatureGateTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
