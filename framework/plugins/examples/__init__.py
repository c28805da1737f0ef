"""Example plugins: real, registrable plugins written for this book, not ports of anyone's.

The other modules of ``framework.plugins`` are kube-scheduler's in-tree plugins
or ports of out-of-tree ones from ``kubernetes-sigs/scheduler-plugins``, and
they carry the names and messages of their originals. The plugins here are
neither. Each one exists to show extension points doing one job, small
enough to read in a sitting and complete enough to run in a scheduler:

* ``podgroupgate``: PodGroupGate, a small gang plugin. Reserve and
  Unreserve keep a book of each pod group's members, and Permit holds the
  members until enough of them have a node (chapter 5).
* ``nodeslotstamp``: NodeSlotStamp. Filter, Reserve, PreBind and Unreserve
  hand each pod a numbered slot of its node and write it on the pod before
  it is bound.

They follow the shape of every plugin module (a ``NAME``, the plugin class,
its ``<PluginName>Args`` when it takes any, and a ``new(args, handle)``
factory) but are in no registry by default: a scheduler that wants one adds
it, as any out-of-tree plugin is added, with
``build_registry(in_tree_registry(), with_plugin(NAME, new))``.
"""
