#!/usr/bin/env python3
"""Writes the names of PaddlePaddle's public API (names only: each public module's
`__all__`, and the public attributes of `paddle.Tensor`) to paddle_api.json here,
for coverage.py. Run with an interpreter that has paddle installed:

    "$PADDLE_PYTHON" tools/paddle_api/dump_names.py
"""

import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "paddle_examples"))
import extract  # noqa: E402  (its walk over Paddle's public modules)


def main():
    import paddle

    modules = {}
    for name, obj in extract.walk_public_api("paddle"):
        if isinstance(obj, types.ModuleType):
            members = sorted(set(extract._public_members(obj)))
            modules[name] = [
                m for m in members if not isinstance(getattr(obj, m, None), types.ModuleType)
            ]
    tensor = sorted(k for k, _ in extract.public_attrs(paddle.Tensor))
    out = {"paddle_version": paddle.__version__, "modules": modules, "tensor": tensor}
    with open(os.path.join(HERE, "paddle_api.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    print(
        f"{len(modules)} modules, {sum(map(len, modules.values()))} names, "
        f"{len(tensor)} Tensor attributes"
    )


if __name__ == "__main__":
    main()
