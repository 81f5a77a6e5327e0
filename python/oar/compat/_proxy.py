"""`import torch` answered by oar (Paddle's torch proxy, paddle.enable_compat).

A meta-path finder placed first on sys.meta_path answers for `torch` and `torch.x.y`
with oar's module objects (`torch.nn.functional` -> `oar.nn.functional`), so code
written against PyTorch's module layout imports oar. Modules of a real torch imported
before are set aside while the proxy is on and put back by disable_torch_proxy.

The proxy is global. Paddle's `scope` (proxy only the imports made inside some
modules) and `blocked_modules` are refused with NotImplementedError: sys.modules holds
one `torch` for every importer, and answering per importer needs Paddle's rewriting of
the scoped modules' loaders, which oar does not do.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from typing import Any, Iterator

_ALIAS, _TARGET = "torch", "oar"


def _is_alias(name):
    return name == _ALIAS or name.startswith(_ALIAS + ".")


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module
        self._saved = {k: getattr(module, k, None) for k in ("__spec__", "__loader__")}

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # importlib rebinds __spec__/__loader__; oar's own imports need its own back.
        for k, v in self._saved.items():
            try:
                setattr(module, k, v)
            except AttributeError:
                pass


class _TorchProxyFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not _is_alias(fullname):
            return None
        tname = _TARGET + fullname[len(_ALIAS) :]
        try:
            module = importlib.import_module(tname)
        except ModuleNotFoundError as e:
            if e.name and (e.name == tname or tname.startswith(e.name + ".")):
                missing = _ALIAS + e.name[len(_TARGET) :]
                raise ModuleNotFoundError(
                    f"No module named '{missing}' (oar's torch proxy has no {e.name})", name=missing
                ) from None
            raise
        is_pkg = hasattr(module, "__path__")
        spec = importlib.machinery.ModuleSpec(fullname, _Loader(module), is_package=is_pkg)
        if is_pkg:
            spec.submodule_search_locations = list(module.__path__)
        return spec


_FINDER = _TorchProxyFinder()
_set_aside: dict = {}


def _drop_alias_modules():
    return {n: sys.modules.pop(n) for n in [n for n in sys.modules if _is_alias(n)]}


def _global_only(api, scope, blocked_modules):
    for arg, v in (("scope", scope), ("blocked_modules", blocked_modules)):
        if v is not None:
            raise NotImplementedError(
                f"{api}(): argument '{arg}' is not supported: oar's "
                f"torch proxy is global (docs/compat.md)"
            )


def enable_torch_proxy(
    *, scope: Any = None, blocked_modules: Any = None, backend: str = "torch", silent: bool = False
) -> None:
    """Make `import torch` (and `torch.x.y`) give oar's modules, everywhere (Paddle's
    paddle.enable_compat; `scope` and `blocked_modules` are not supported)."""
    _global_only("enable_compat", scope, blocked_modules)
    if backend != "torch":
        raise ValueError(
            f"enable_compat(): argument 'backend' must be 'torch', but got {backend!r}"
        )
    if _FINDER in sys.meta_path:
        return
    _set_aside.clear()
    _set_aside.update(_drop_alias_modules())
    sys.meta_path.insert(0, _FINDER)


def disable_torch_proxy() -> None:
    """Undo enable_torch_proxy: `import torch` gives the real PyTorch again (if any)."""
    if _FINDER not in sys.meta_path:
        warnings.warn("disable_compat(): the torch proxy is not enabled", stacklevel=2)
        return
    sys.meta_path.remove(_FINDER)
    _drop_alias_modules()
    sys.modules.update(_set_aside)
    _set_aside.clear()


@contextlib.contextmanager
def use_torch_proxy_guard(
    *, enable: bool = True, scope: Any = None, silent: bool = False
) -> Iterator[None]:
    """The torch proxy on (enable) or off for the duration of a with-block, then as
    before."""
    _global_only("use_torch_proxy_guard", scope, None)
    was_on = _FINDER in sys.meta_path
    if enable and not was_on:
        enable_torch_proxy()
    elif not enable and was_on:
        disable_torch_proxy()
    try:
        yield
    finally:
        if was_on and _FINDER not in sys.meta_path:
            enable_torch_proxy()
        elif not was_on and _FINDER in sys.meta_path:
            disable_torch_proxy()
