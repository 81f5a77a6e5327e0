"""Make `import paddle` (and every `paddle.x.y` submodule import) resolve to another
package, by default oar, without touching the files of either.

A meta-path finder placed first on `sys.meta_path` answers for the alias name and
its dotted children: it imports the target module (`oar.nn.functional` for
`paddle.nn.functional`) and hands importlib that very module object, so
`import paddle.nn.functional as F` gives `F is oar.nn.functional`, and
`from paddle.vision.transforms import ToTensor` takes oar's class. A module the
target lacks fails with ModuleNotFoundError naming the *alias* (`paddle.fft`), as it
would for a user whose Paddle lacked it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module
        # importlib overwrites __spec__/__loader__ of the module it is given; put the
        # target's own back so the target package keeps importing its submodules normally
        self._saved = {k: getattr(module, k, None) for k in ("__spec__", "__loader__")}

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        for k, v in self._saved.items():
            try:
                setattr(module, k, v)
            except AttributeError:
                pass


class AliasFinder(importlib.abc.MetaPathFinder):
    def __init__(self, alias: str, target: str):
        self.alias, self.target = alias, target

    def _target_name(self, fullname: str) -> str | None:
        if fullname == self.alias:
            return self.target
        if fullname.startswith(self.alias + "."):
            return self.target + fullname[len(self.alias) :]
        return None

    def find_spec(self, fullname, path=None, target=None):
        tname = self._target_name(fullname)
        if tname is None:
            return None
        try:
            module = importlib.import_module(tname)
        except ModuleNotFoundError as e:
            if e.name and (e.name == tname or tname.startswith(e.name + ".")):
                missing = self.alias + e.name[len(self.target) :]
                raise ModuleNotFoundError(f"No module named '{missing}'", name=missing) from None
            raise
        is_pkg = hasattr(module, "__path__")
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_pkg)
        if is_pkg:
            spec.submodule_search_locations = list(module.__path__)
        return spec


def install(alias: str = "paddle", target: str = "oar") -> AliasFinder:
    """Route imports of `alias` and `alias.*` to `target`; returns the finder (for `uninstall`)."""
    for name in [n for n in sys.modules if n == alias or n.startswith(alias + ".")]:
        del sys.modules[name]
    finder = AliasFinder(alias, target)
    sys.meta_path.insert(0, finder)
    return finder


def uninstall(finder: AliasFinder) -> None:
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    alias = finder.alias
    for name in [n for n in sys.modules if n == alias or n.startswith(alias + ".")]:
        del sys.modules[name]
