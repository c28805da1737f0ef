"""The plugins: kube-scheduler's in-tree plugins and a few out-of-tree ones, one module each.

Each plugin module follows the same shape, as kube-scheduler's plugin folders
do: the plugin's ``NAME`` (from :mod:`framework.plugins.names`), its args
class ``<PluginName>Args`` if it takes any, the plugin class with the
extension-point methods it implements, and a ``new(args, handle)`` factory
that the registry calls.
"""
