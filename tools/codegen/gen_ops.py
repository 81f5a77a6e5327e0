#!/usr/bin/env python3
"""Generates oar's per-op code from src/oar/ops/*.yaml (docs/design.md §3).

Outputs (into --out, the build tree; never committed):
  oar/api/api.h, oar/api/api.cc           C++ API without autograd (oar::api::<op>)
  oar/eager/dygraph_functions.h, .cc      eager functions with autograd (oar::<op>)
  oar/eager/nodes.h, nodes.cc             one grad node class per differentiable op
  oar/eager/op_list.inc                   OAR_OP(name, "tensor inputs", "differentiable inputs")
                                          per op, for the op tests
  oar/eager/op_invoke.inc                 {"<op>", invoker} entries: the generic call the op tests use
  oar/jit/op_replay.inc                   {"<op>", replayer} entries: how captured programs call ops
  oar/bindings/eager_op_function.cc       the python-c functions and Tensor methods
  docs/ops.md                             the op reference table
"""

import argparse
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_bindings  # noqa: E402

ATTR_TYPES = {
    "bool": ("bool", "bool"),
    "int": ("int64_t", "int64_t"),
    "float": ("double", "double"),
    "Scalar": ("const Scalar&", "Scalar"),
    "int[]": ("const std::vector<int64_t>&", "std::vector<int64_t>"),
    "DataType": ("DType", "DType"),
}
DTYPE_DEFAULTS = {
    "undefined": "DType::kUndefined",
    "float32": "DType::kFloat32",
    "float64": "DType::kFloat64",
    "float16": "DType::kFloat16",
    "bfloat16": "DType::kBFloat16",
    "int32": "DType::kInt32",
    "int64": "DType::kInt64",
    "bool": "DType::kBool",
}


# The tensor kinds of a sparse kernel signature: C++ type, Tensor predicate, the
# PrepareData for an input, the layout its kernels are registered under.
KINDS = {
    "dense": ("DenseTensor", "is_dense", "PrepareData", "DataLayout::kAny"),
    "sparse_coo": (
        "SparseCooTensor",
        "is_sparse_coo",
        "PrepareSparseCoo",
        "DataLayout::kSparseCoo",
    ),
    "sparse_csr": (
        "SparseCsrTensor",
        "is_sparse_csr",
        "PrepareSparseCsr",
        "DataLayout::kSparseCsr",
    ),
}


class Arg:
    def __init__(self, text):
        m = re.fullmatch(
            r"\s*(Tensor\[\]|Tensor|int\[\]|[A-Za-z]+)\s+(\w+)\s*(?:=\s*(.+?))?\s*", text
        )
        if not m:
            raise ValueError(f"cannot parse argument '{text}'")
        self.type, self.name, default = m.groups()
        if self.type not in ("Tensor", "Tensor[]") and self.type not in ATTR_TYPES:
            raise ValueError(f"unknown type '{self.type}' in '{text}'")
        if default is not None and self.type == "DataType":
            default = DTYPE_DEFAULTS[default]
        self.default = default

    @property
    def is_tensor(self):
        return self.type == "Tensor"

    @property
    def is_tensor_list(self):
        return self.type == "Tensor[]"

    @property
    def is_input(self):
        return self.is_tensor or self.is_tensor_list

    def cpp_param(self, with_default=True, mutable=False):
        if self.is_tensor:
            t = "Tensor&" if mutable else "const Tensor&"
        elif self.is_tensor_list:
            t = "const std::vector<Tensor>&"
        else:
            t = ATTR_TYPES[self.type][0]
        d = f" = {self.default}" if with_default and self.default is not None else ""
        return f"{t} {self.name}{d}"

    @property
    def member_type(self):
        return ATTR_TYPES[self.type][1]


def split_args(text):
    text = text.strip()
    assert text.startswith("(") and text.endswith(")"), text
    parts, depth, cur = [], 0, ""
    for ch in text[1:-1]:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


class Op:
    def __init__(self, d):
        self.name = d["op"]
        self.args = [Arg(a) for a in split_args(d["args"])]
        m = re.fullmatch(r"Tensor\((\w+)\)", d["output"].strip())
        if not m:
            raise ValueError(f"{self.name}: only a single Tensor output is supported")
        self.out = m.group(1)
        # Sparse ops name one kernel per combination of input kinds (Paddle's
        # `func: abs_coo{sparse_coo -> sparse_coo}`); their kernels size their own
        # outputs (a sparse result's nnz depends on the data), so infer_meta is optional.
        self.kernels = self._parse_kernels(d.get("kernels"))
        if "infer_meta" not in d and not self.kernels:
            raise ValueError(
                f"{self.name}: infer_meta is required (only ops with `kernels:` may omit it)"
            )
        im = d.get("infer_meta", "").strip()
        m = re.fullmatch(r"(\w*)(?:\((.*)\))?", im)
        self.infer_meta = m.group(1) or None
        self.infer_params = (
            [p.strip() for p in m.group(2).split(",")]
            if m.group(2) is not None
            else [a.name for a in self.args]
        )
        self.data_type = d.get("data_type")
        self.skip_transform = set(d.get("skip_transform", []))
        self.no_need_buffer = set(d.get("no_need_buffer", []))
        self.view = bool(d.get("view", False))
        self.float_only = bool(d.get("float_only", False))
        # Paddle's handling of a 0-d tensor operand (ZeroDimDType, src/oar/eager/promotion.h)
        self.zero_dim = d.get("zero_dim")
        if self.zero_dim not in (None, "scalar", "promote"):
            raise ValueError(f"{self.name}: zero_dim must be scalar or promote")
        # Auto-cast list (Note [Auto-cast happens in the forward pass]): white, black,
        # none (never cast: cast itself), or the default (follow the inputs).
        self.amp = d.get("amp", "gray")
        if self.amp not in ("white", "black", "gray", "none"):
            raise ValueError(
                f"{self.name}: amp must be white, black, gray or none, got {self.amp!r}"
            )
        self.doc = d.get("doc", "")
        # The docstring parts beyond `doc` (gen_bindings.docstring): argument texts where
        # the generator's defaults do not fit, the Returns line, a >>> example.
        self.args_doc = d.get("args_doc") or {}
        self.returns = d.get("returns")
        self.example = (d.get("example") or "").rstrip("\n")
        self.python = self._python_surface(d.get("python"))
        self.backward = d.get("backward") or {}
        inplace = d.get("inplace")
        self.inplace = None
        if inplace:
            m = re.fullmatch(r"\((\w+)\s*->\s*(\w+)\)", inplace.strip())
            self.inplace = m.group(1)
        if self.kernels and self.inplace:
            raise ValueError(f"{self.name}: ops with `kernels:` have no in-place variant")
        if self.kernels:
            self.amp = "none"  # auto-cast casts dense tensors only
        names = {a.name for a in self.args}
        for k in self.backward:
            if k not in names:
                raise ValueError(f"{self.name}: backward for unknown input '{k}'")
        for k in self.no_need_buffer | self.skip_transform:
            if k not in names:
                raise ValueError(f"{self.name}: unknown input '{k}'")
        for k in self.args_doc:
            if k not in names:
                raise ValueError(f"ops.yaml: op '{self.name}': args_doc for unknown argument '{k}'")

    def _parse_kernels(self, value):
        """`kernels: {name: "(kind, ...) -> kind"}` -> [(name, [input kinds], output kind)]."""
        if value is None:
            return []
        if not isinstance(value, dict) or not value:
            raise ValueError(f"{self.name}: `kernels:` must map kernel names to signatures")
        inputs = [a for a in self.args if a.is_input]
        if any(a.is_tensor_list for a in inputs):
            raise ValueError(f"{self.name}: ops with `kernels:` take no Tensor[] input")
        out = []
        for kname, sig in value.items():
            m = re.fullmatch(r"\s*\(([^)]*)\)\s*->\s*(\w+)\s*", str(sig))
            if not m:
                raise ValueError(
                    f"{self.name}: kernel {kname}: cannot parse signature {sig!r}; "
                    f"write (kind, ...) -> kind"
                )
            kinds = [k.strip() for k in m.group(1).split(",") if k.strip()]
            for k in kinds + [m.group(2)]:
                if k not in KINDS:
                    raise ValueError(
                        f"{self.name}: kernel {kname}: unknown tensor kind {k!r}; "
                        f"the kinds are {', '.join(KINDS)}"
                    )
            if len(kinds) != len(inputs):
                raise ValueError(
                    f"{self.name}: kernel {kname} takes {len(kinds)} tensors but the "
                    f"op has {len(inputs)} tensor inputs"
                )
            out.append((kname, kinds, m.group(2)))
        return out

    def _python_surface(self, value):
        """The `python:` field: a set of {"function", "method"}; empty when internal."""
        if value == "internal":
            return set()
        if not isinstance(value, list) or not value or not set(value) <= {"function", "method"}:
            raise ValueError(
                f"ops.yaml: op '{self.name}': `python:` must be internal or a "
                f"list of function/method, got {value!r}"
            )
        if "method" in value and not (self.args and self.args[0].is_tensor):
            raise ValueError(
                f"ops.yaml: op '{self.name}': a Tensor method needs a Tensor as its first argument"
            )
        return set(value)

    @property
    def inputs(self):
        return [a for a in self.args if a.is_input]

    @property
    def attrs(self):
        return [a for a in self.args if not a.is_input]

    @property
    def diff_inputs(self):
        return [a for a in self.inputs if a.name in self.backward]

    @property
    def node_class(self):
        return "".join(p.capitalize() for p in self.name.split("_")) + "GradNode"

    @property
    def grad_out(self):
        return f"grad_{self.out}"

    def saved(self):
        """Tensors the formulas read: (name, is_output)."""
        text = " ".join(self.backward.values())
        used = set(re.findall(r"\b\w+\b", text))
        saved = [(a.name, False) for a in self.inputs if a.name in used]
        if self.out in used:
            saved.append((self.out, True))
        return saved

    def reads_slot_meta(self, name):
        """A saved input whose shape alone the formulas read and whose gradient the
        node computes: its slot meta holds that shape already, so the node saves
        nothing for it (Note [A shape-only input is read from its slot meta])."""
        a = next((x for x in self.inputs if x.name == name), None)
        return (
            a is not None
            and not a.is_tensor_list
            and name in self.no_need_buffer
            and name in self.backward
        )

    def signature(self, name=None, inplace=False, defaults=True):
        params = []
        for a in self.args:
            params.append(a.cpp_param(defaults, mutable=inplace and a.name == self.inplace))
        ret = "Tensor&" if inplace else "Tensor"
        return f"{ret} {name or self.name}({', '.join(params)})"


# --------------------------------------------------------------------------- API
def gen_key_parser(op):
    """The KernelKeyParser over the inputs, with data_type and float_only applied."""
    L = ["    KernelKeyParser parser;"]
    for a in op.inputs:
        if a.name not in op.skip_transform:
            L.append(f"    parser({a.name});")
    if op.data_type:
        dt = next(a for a in op.args if a.name == op.data_type)
        if dt.type == "DataType":
            if op.inputs:
                L.append(
                    f"    parser.set_dtype({dt.name} != DType::kUndefined ? {dt.name} : "
                    f"{op.inputs[0].name}.dtype());"
                )
            else:
                L.append(f"    parser.set_dtype({dt.name});")
        elif dt.is_tensor_list:  # the list's first tensor (an empty list: the kernel's error)
            L.append(
                f"    parser.set_dtype({dt.name}.empty() ? DType::kUndefined : "
                f"{dt.name}[0].dtype());"
            )
        else:
            L.append(f"    parser.set_dtype({dt.name}.dtype());")
    if op.float_only:
        L.append("    parser.PromoteToFloat();")
    return L


def gen_sparse_api_function(op):
    """The API of an op with `kernels:`: the first kernel whose input kinds match
    the tensors runs; its key has the layout of its first sparse input."""
    fname = op.name
    L = [op.signature(fname, False, defaults=False) + " {", "  try {"]
    for pos, a in enumerate(op.args):
        if a.is_tensor:
            L.append(f'    CheckInput({a.name}, "{a.name}", {pos}, true);')
    L += gen_key_parser(op)
    L.append("    const KernelKey key = parser.key();")
    for kname, kinds, out_kind in op.kernels:
        cond = " && ".join(f"{a.name}.{KINDS[k][1]}()" for a, k in zip(op.inputs, kinds)) or "true"
        layout = next((KINDS[k][3] for k in kinds if k != "dense"), "DataLayout::kAny")
        L.append(f"    if ({cond}) {{")
        L.append(
            f'      static const KernelTable& table = KernelFactory::Instance().Table("{kname}");'
        )
        L.append("      const KernelResult kernel_result =")
        L.append(f"          table.SelectKernelOrThrowError({{key.backend, {layout}, key.dtype}});")
        L.append(
            "      const DeviceContext& dev_ctx ="
            " GetDeviceContextByBackend(kernel_result.RunsOn(key.backend));"
        )
        sig = ["const DeviceContext&"]
        call = ["dev_ctx"]
        kinds_of = dict(zip([a.name for a in op.inputs], kinds))
        for a in op.args:
            if a.is_tensor:
                ctype, _, prep, _ = KINDS[kinds_of[a.name]]
                transform = "false" if a.name in op.skip_transform else "true"
                L.append(
                    f"      const auto input_{a.name} = {prep}({a.name}, key.dtype, {transform});"
                )
                sig.append(f"const {ctype}&")
                call.append(f"*input_{a.name}")
            else:
                sig.append(ATTR_TYPES[a.type][0])
                call.append(a.name)
        out_type = KINDS[out_kind][0]
        sig.append(f"{out_type}*")
        L.append(f"      auto kernel_out = MakeShared<{out_type}>();")
        call.append("kernel_out.get()")
        L.append(f"      using kernel_signature = void (*)({', '.join(sig)});")
        L.append(
            "      auto* kernel_fn = kernel_result.kernel.GetVariadicKernelFn<kernel_signature>();"
        )
        L.append("      {")
        L.append(
            f'        profiler::RecordEvent kernel_event(profiler::StaticName("{kname} kernel"), '
            "profiler::EventKind::kKernel);"
        )
        L.append(f"        (*kernel_fn)({', '.join(call)});")
        L.append("      }")
        L.append("      return Tensor(std::move(kernel_out));")
        L.append("    }")
    sigs = ", ".join(f"({', '.join(k)}) -> {o}" for _, k, o in op.kernels)
    L.append(
        f'    ThrowNoSparseKernel({{{", ".join("&" + a.name for a in op.inputs)}}}, "{sigs}");'
    )
    L.append("  } catch (Error& e) {")
    L.append(f'    e.Prepend("{fname}(): ");')
    L.append("    throw;")
    L.append("  }")
    L.append("}")
    return "\n".join(L)


def gen_api_function(op, inplace=False):
    if op.kernels:
        return gen_sparse_api_function(op)
    fname = op.name + ("_" if inplace else "")
    L = [op.signature(fname, inplace, defaults=False) + " {", "  try {"]
    for pos, a in enumerate(op.args):
        need_data = "false" if a.name in op.no_need_buffer else "true"
        if a.is_tensor:
            L.append(f'    CheckInput({a.name}, "{a.name}", {pos}, {need_data});')
        elif a.is_tensor_list:
            L.append(
                f'    if ({a.name}.empty()) throw errors::InvalidArgument("argument \'{a.name}\' '
                f'(position {pos}) must hold at least one tensor");'
            )
            L.append(
                f'    for (const auto& t : {a.name}) CheckInput(t, "{a.name}", {pos}, {need_data});'
            )
    L += gen_key_parser(op)
    if inplace:
        L.append(f"    parser.set_dtype({op.inplace}.dtype());")
    L.append("    const KernelKey key = parser.key();")
    L.append(f'    static const KernelTable& table = KernelFactory::Instance().Table("{op.name}");')
    L.append("    const KernelResult kernel_result = table.SelectKernelOrThrowError(key);")
    L.append(
        "    const DeviceContext& dev_ctx ="
        " GetDeviceContextByBackend(kernel_result.RunsOn(key.backend));"
    )
    # An in-place op's other inputs may be read from a copy (ReadApartFromTarget below).
    read_apart = [a for a in op.inputs if inplace and a.name != op.inplace]
    for a in op.inputs:
        transform = "false" if a.name in op.skip_transform else "true"
        const = "" if a in read_apart else "const "
        L.append(f"    {const}auto input_{a.name} = PrepareData({a.name}, key.dtype, {transform});")

    def meta_arg(p):
        a = next((x for x in op.args if x.name == p), None)
        if a is None:
            raise ValueError(f"{op.name}: infer_meta parameter '{p}' is not an argument")
        if a.is_tensor:
            return f"*input_{a.name}"
        if a.is_tensor_list:
            return f"input_{a.name}.ptrs"
        return a.name

    meta_args = ", ".join(meta_arg(p) for p in op.infer_params)
    kernel_args = ", ".join(meta_arg(a.name) for a in op.args)
    sig_types = ["const DeviceContext&"]
    for a in op.args:
        if a.is_tensor:
            sig_types.append("const DenseTensor&")
        elif a.is_tensor_list:
            sig_types.append("const std::vector<const DenseTensor*>&")
        else:
            sig_types.append(ATTR_TYPES[a.type][0])
    sig_types.append("DenseTensor*")
    if inplace:
        L.append("    DenseTensor inferred;")
        L.append(f"    {op.infer_meta}({meta_args}, &inferred);")
        L.append(f"    CheckInplaceTarget({op.inplace}, inferred);")
        # The kernel writes the result's dtype into x's memory: abs_ of a complex x
        # would put real values into complex elements (torch refuses too).
        x = op.inplace
        msg = (
            f'"the result has dtype ", inferred.dtype(), " but \'{x}\' has dtype ", '
            f'{x}.dtype(), "; an in-place op cannot change the dtype of its input: use '
            f'{op.name}()"'
        )
        L.append(f"    if (inferred.dtype() != {x}.dtype()) {{")
        L.append(f"      throw errors::InvalidArgument({msg});")
        L.append("    }")
        L.append(f"    DenseTensor* kernel_out = &{op.inplace}.dense();")
        for a in read_apart:  # Note [In-place inputs that overlap the written tensor]
            L.append(f"    ReadApartFromTarget(input_{a.name}, *kernel_out);")
    else:
        L.append("    Tensor api_output(MakeShared<DenseTensor>());")
        L.append("    DenseTensor* kernel_out = &api_output.dense();")
        L.append(f"    {op.infer_meta}({meta_args}, kernel_out);")
    L.append(f"    using kernel_signature = void (*)({', '.join(sig_types)});")
    L.append("    auto* kernel_fn = kernel_result.kernel.GetVariadicKernelFn<kernel_signature>();")
    L.append("    {")
    L.append(
        f'      profiler::RecordEvent kernel_event(profiler::StaticName("{fname} kernel"), '
        "profiler::EventKind::kKernel);"
    )
    L.append(f"      (*kernel_fn)(dev_ctx, {kernel_args}, kernel_out);")
    L.append("    }")
    if inplace:
        L.append(f"    {op.inplace}.bump_inplace_version();")
        L.append(f"    return {op.inplace};")
    else:
        L.append("    return api_output;")
    L.append("  } catch (Error& e) {")
    L.append(f'    e.Prepend("{fname}(): ");')
    L.append("    throw;")
    L.append("  }")
    L.append("}")
    return "\n".join(L)


def gen_api(ops):
    h = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit.",
        "// The C++ API without autograd (phi's C++ API layer).",
        "#pragma once",
        "",
        "#include <vector>",
        "",
        '#include "oar/core/tensor.h"',
        "",
        "namespace oar::api {",
        "",
    ]
    cc = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit.",
        '#include "oar/api/api.h"',
        "",
        '#include "oar/api/api_base.h"',
        '#include "oar/core/memory.h"',
        '#include "oar/core/profiler/record_event.h"',
        '#include "oar/kernels/infer_meta.h"',
        "",
        "namespace oar::api {",
        "",
    ]
    for op in ops:
        h.append(f"// {op.doc}")
        h.append(op.signature() + ";")
        cc.append(gen_api_function(op))
        cc.append("")
        if op.inplace:
            h.append(op.signature(op.name + "_", True) + ";")
            cc.append(gen_api_function(op, True))
            cc.append("")
    h += ["", "}  // namespace oar::api", ""]
    cc += ["}  // namespace oar::api", ""]
    return "\n".join(h), "\n".join(cc)


# ------------------------------------------------------------------------- nodes
def gen_node_class(op):
    saved = op.saved()
    L = [
        f"class {op.node_class} final : public GradNodeBase {{",
        " public:",
        f"  {op.node_class}(size_t bwd_in_slot_num, size_t bwd_out_slot_num)",
        "      : GradNodeBase(bwd_in_slot_num, bwd_out_slot_num) {}",
        "  GradSlots operator()(GradSlots& grads, bool create_graph = false,",
        "                       bool is_new_grad = false) override;",
        f'  std::string name() const override {{ return "{op.node_class}"; }}',
        f'  const char* forward_op() const override {{ return "{op.name}"; }}',
        "  void ClearTensorWrappers() override {",
    ]
    for n, _ in saved:
        a = next((x for x in op.inputs if x.name == n), None)
        if op.reads_slot_meta(n):
            continue
        if a is not None and a.is_tensor_list:
            L.append(f"    for (auto& tw : {n}_) tw.clear();")
        else:
            L.append(f"    {n}_.clear();")
    if saved:
        L.append("    SetIsTensorWrappersCleared(true);")
    L.append("  }")
    L.append("  std::vector<SavedValueInfo> SavedValues() const override;")
    for n, is_out in saved:
        nnb = "true" if n in op.no_need_buffer else "false"
        a = next((x for x in op.inputs if x.name == n), None)
        if op.reads_slot_meta(n):
            continue
        if a is not None and a.is_tensor_list:
            L.append(f"  void SetTensorWrapper_{n}(const std::vector<Tensor>& {n}) {{")
            L.append(f"    {n}_.clear();")
            L.append(
                f'    for (const auto& t : {n}) {n}_.emplace_back(t, {nnb}, "{op.name}", "{n}");'
            )
            L.append("  }")
        else:
            L.append(f"  void SetTensorWrapper_{n}(const Tensor& {n}) {{")
            L.append(f'    {n}_.Save({n}, {nnb}, "{op.name}", "{n}");')
            L.append("  }")
    for a in op.attrs:
        L.append(f"  void SetAttribute_{a.name}({a.member_type} v) {{ {a.name}_ = std::move(v); }}")
    members = []
    for n, _ in saved:
        a = next((x for x in op.inputs if x.name == n), None)
        if op.reads_slot_meta(n):
            continue
        t = "std::vector<TensorWrapper>" if a is not None and a.is_tensor_list else "TensorWrapper"
        members.append(f"  {t} {n}_;")
    for a in op.attrs:
        members.append(f"  {a.member_type} {a.name}_{{}};")
    if members:
        L += ["", " private:"] + members
    L.append("};")
    return "\n".join(L)


def gen_node_impl(op):
    saved = op.saved()
    L = [
        f"GradSlots {op.node_class}::operator()(GradSlots& grads, bool create_graph, bool) {{",
        "  const auto& out_metas = OutputMeta();",
        f"  GradSlots returns({len(op.inputs)});",
    ]
    # A formula may not read the incoming gradient (rnn's double grad recomputes).
    if any(re.search(rf"\b{op.grad_out}\b", f) for f in op.backward.values()):
        L.append(f"  const Tensor& {op.grad_out} = grads[0][0];")
    slot_of = {a.name: i for i, a in enumerate(op.inputs)}
    for n, _ in saved:
        a = next((x for x in op.inputs if x.name == n), None)
        if op.reads_slot_meta(n):
            L.append(f"  const Tensor {n} = SlotMetaTensor(out_metas[{slot_of[n]}][0]);")
        elif a is not None and a.is_tensor_list:
            L.append(f"  std::vector<Tensor> {n};")
            L.append(f"  for (const auto& tw : {n}_) {n}.push_back(tw.recover(create_graph));")
        else:
            L.append(f"  const Tensor {n} = {n}_.recover(create_graph);")
    for slot, a in enumerate(op.inputs):
        if a.name not in op.backward:
            continue
        formula = op.backward[a.name]
        # Attributes are members; an attribute may share its name with an op
        # (scale's `scale`), so only a name not followed by "(" is the attribute.
        for attr in op.attrs:
            formula = re.sub(rf"\b{attr.name}\b(?!\s*\()", f"{attr.name}_", formula)
        # A gradient has its input's dtype, whatever dtype promotion computed in.
        L.append(f"  if (NeedsGrad(out_metas, {slot})) {{")
        if a.is_tensor_list:
            L.append(f"    std::vector<Tensor> gs = {formula};")
            L.append(
                f"    for (size_t r = 0; r < gs.size(); ++r) "
                f"returns[{slot}].push_back(grad_as(gs[r], out_metas[{slot}][r]));"
            )
        else:
            L.append(f"    returns[{slot}].push_back(grad_as({formula}, out_metas[{slot}][0]));")
        L.append("  }")
    L.append("  return returns;")
    L.append("}")
    L.append("")
    L.append(f"std::vector<SavedValueInfo> {op.node_class}::SavedValues() const {{")
    L.append("  std::vector<SavedValueInfo> v;")
    for n, _ in saved:
        a = next((x for x in op.inputs if x.name == n), None)
        if op.reads_slot_meta(n):
            L.append(
                f'  v.push_back(SlotMetaInfo("{n}", OutputMeta()[{slot_of[n]}][0], '
                "IsTensorWrappersCleared()));"
            )
        elif a is not None and a.is_tensor_list:
            L.append(
                f'  for (size_t i = 0; i < {n}_.size(); ++i) v.push_back({n}_[i].Info(StrCat("{n}[", i, "]")));'
            )
        else:
            L.append(f'  v.push_back({n}_.Info("{n}"));')
    for a in op.attrs:
        L.append(f'  v.push_back(SavedValueInfo::Attribute("{a.name}", StrCat({a.name}_)));')
    L.append("  return v;")
    L.append("}")
    return "\n".join(L)


# ----------------------------------------------------------------- eager functions
def gen_amp(op, fname, inplace):
    """The auto-cast branch (Paddle's AMP branch of a dygraph function): pick the
    dtype, cast the castable inputs, run the op again with auto-cast off
    (Note [Auto-cast happens in the forward pass], src/oar/eager/amp.h). In-place
    variants keep their input's dtype and have none."""
    # Every tensor input: skip_transform is about the kernel's dtype, and the
    # integer ones (indices, masks) are never cast (amp::AutoCast).
    prom = list(op.inputs)
    if inplace or op.amp == "none" or not prom:
        return []
    lst = {"white": "kWhite", "black": "kBlack", "gray": "kGray"}[op.amp]
    L = [
        "  if (amp::CurrentLevel() != amp::Level::kO0) [[unlikely]] {",
        "    std::vector<DType> dtypes;",
    ]
    for a in prom:
        if a.is_tensor_list:
            L.append(f"    for (DType d : DTypesOf({a.name})) dtypes.push_back(d);")
        else:
            L.append(f"    dtypes.push_back(DTypeOfTensor({a.name}));")
    L.append(
        f'    const DType amp_dtype = amp::DestDType("{op.name}", amp::OpList::{lst}, dtypes);'
    )
    L.append("    if (amp_dtype != DType::kUndefined) {")
    L.append("      amp::AutoCastGuard amp_off(amp::Level::kO0);")
    args = [f"amp::AutoCast({a.name}, amp_dtype)" if a in prom else a.name for a in op.args]
    # Qualified: an argument may share the op's name (scale's `scale`).
    L.append(f"      return ::oar::{fname}({', '.join(args)});")
    L.append("    }")
    L.append("  }")
    return L


def gen_promotion(op, fname, inplace):
    """Casts mixed-dtype tensor inputs with the differentiable cast, then calls
    the op again (the shape of the AMP branch of Paddle's dygraph functions,
    docs/design.md §4)."""
    prom = [a for a in op.inputs if a.name not in op.skip_transform]
    if op.kernels:  # PrepareData casts the values of sparse inputs to the kernel dtype
        return []
    if not (len(prom) >= 2 or any(a.is_tensor_list for a in prom)):
        return []
    names = ", ".join(a.name for a in prom)
    L = [f"  if (NeedsPromotion({names})) [[unlikely]] {{", "    std::vector<DType> dtypes;"]
    for a in prom:
        if a.is_tensor_list:
            L.append(f"    for (DType d : DTypesOf({a.name})) dtypes.push_back(d);")
        else:
            L.append(f"    dtypes.push_back(DTypeOfTensor({a.name}));")
    if inplace:  # the mix must be valid, but the result keeps x's dtype
        L.append(f'    PromotedDType("{fname}", dtypes);')
        L.append(f"    const DType dtype = {op.inplace}.dtype();")
    elif op.zero_dim:  # a 0-d operand (Paddle's rule), else the tensor-with-tensor rule
        if len(prom) != 2 or any(a.is_tensor_list for a in prom):
            raise ValueError(f"{op.name}: zero_dim needs exactly two tensor inputs")
        rule = {"scalar": "kScalar", "promote": "kPromote"}[op.zero_dim]
        L.append(
            f'    DType dtype = ZeroDimDType("{fname}", {prom[0].name}, {prom[1].name}, '
            f"ZeroDimRule::{rule});"
        )
        L.append(f'    if (dtype == DType::kUndefined) dtype = PromotedDType("{fname}", dtypes);')
    else:
        L.append(f'    const DType dtype = PromotedDType("{fname}", dtypes);')
    args = []
    for a in op.args:
        if a in prom and not (inplace and a.name == op.inplace):
            args.append(f"PromoteTo({a.name}, dtype)")
        else:
            args.append(a.name)
    L.append(f"    return {fname}({', '.join(args)});")
    L.append("  }")
    return L


# FLOPs of the ops the profiler counts with with_flops (src/oar/api/op_flops.h);
# {out} is the output.
FLOPS = {
    "matmul": "api::MatmulFlops(x, transpose_x, {out})",
    "linear": "api::LinearFlops(weight, {out})",
    "conv": "api::ConvFlops(weight, {out})",
}


def gen_op_event(op, fname):
    """The op's profiler span (Note [Profiler cost when off]): after the
    promotion branch, so a promoted call is recorded once, by the inner call."""
    L = [
        f'  profiler::RecordEvent op_event(profiler::StaticName("{fname}"), profiler::EventKind::kOperator);'
    ]
    if op.inputs:
        L.append(
            f"  if (op_event.wants_shapes()) [[unlikely]] "
            f"op_event.SetInputs({', '.join(a.name for a in op.inputs)});"
        )
    return L


def gen_op_flops(op, out):
    if op.name not in FLOPS:
        return []
    return [
        f"  if (op_event.wants_flops()) [[unlikely]] op_event.set_flops({FLOPS[op.name].format(out=out)});"
    ]


def gen_trace(op, fname, inplace):
    """Records the call while a capture runs (Note [Capture records the outermost eager
    call], src/oar/eager/trace.h): the check inline, the recording in a cold function of
    its own (gen_traced), so the eager function's frame stays what it was."""
    args = ", ".join(a.name for a in op.args)
    return [
        "  if (jit::Tracer* tracer = jit::Tracer::Current(); tracer && !tracer->nested()) [[unlikely]] {",
        f"    return {fname}_traced(*tracer{', ' if args else ''}{args});",
        "  }",
    ]


def gen_traced(op, fname, inplace):
    """The recording of one call: the op's own eager function, run inside a Recording."""
    tensors = ", ".join(a.name for a in op.inputs)
    attrs = ", ".join(f"jit::AttrValue({a.name})" for a in op.attrs)
    call = f"::oar::{fname}({', '.join(a.name for a in op.args)})"
    sig = op.signature(f"{fname}_traced", inplace, defaults=False)
    head, _, rest = sig.partition("(")
    sig = f"{head}(jit::Tracer& tracer{', ' if rest != ')' else ''}{rest}"
    return "\n".join(
        [
            f"[[gnu::noinline, gnu::cold]] static {sig} {{",
            f'  jit::Tracer::Recording recording(tracer, "{fname}", {{{tensors}}}, {{{attrs}}});',
            f"  return recording.{'FinishInplace' if inplace else 'Finish'}({call});",
            "}",
        ]
    )


REPLAY_KINDS = {
    "bool": "kBool",
    "int": "kInt",
    "float": "kFloat",
    "Scalar": "kScalar",
    "int[]": "kInts",
    "DataType": "kDType",
}


def gen_replay(ops):
    """{"<op>", fn(ReplayArgs&)} entries: how a captured program calls each op and its
    in-place form (src/oar/jit/replay.cc)."""
    L = ["// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit."]
    for op in ops:
        for inplace in (False, True) if op.inplace else (False,):
            fname = op.name + ("_" if inplace else "")
            args, ti, ai = [], 0, 0
            kinds_of_tensors = "".join("L" if a.is_tensor_list else "T" for a in op.inputs)
            for a in op.args:
                if a.is_tensor_list:
                    args.append(f"a.List({ti})")
                    ti += 1
                elif a.is_tensor:
                    mutable = inplace and a.name == op.inplace
                    args.append(f"a.{'Mutable' if mutable else 'One'}({ti})")
                    ti += 1
                else:
                    args.append(f"a.Attr<{a.member_type}>({ai})")
                    ai += 1
            kinds = ", ".join(f'{{"{a.name}", AttrKind::{REPLAY_KINDS[a.type]}}}' for a in op.attrs)
            L.append(
                f'{{"{fname}", "{kinds_of_tensors}", {{{kinds}}}, [](ReplayArgs& a) -> Tensor {{ '
                f"return ::oar::{fname}({', '.join(args)}); }}}},"
            )
    return "\n".join(L) + "\n"


def gen_eager_function(op, inplace=False):
    fname = op.name + ("_" if inplace else "")
    api_call = f"api::{fname}({', '.join(a.name for a in op.args)})"
    diff = op.diff_inputs
    L = [op.signature(fname, inplace, defaults=False) + " {"]
    L += gen_trace(op, fname, inplace)
    L += gen_amp(op, fname, inplace)
    L += gen_promotion(op, fname, inplace)
    L += gen_op_event(op, fname)
    if not diff:
        if inplace:
            L.append(f"  {api_call};")
            L.append(
                f'  if (FLAGS_check_nan_inf()) [[unlikely]] CheckTensorHasNanOrInf("{fname}", {op.inplace});'
            )
            L += gen_op_flops(op, op.inplace)
            L.append(f"  return {op.inplace};")
        else:
            L.append(f"  Tensor {op.out} = {api_call};")
            L.append(
                f'  if (FLAGS_check_nan_inf()) [[unlikely]] CheckTensorHasNanOrInf("{fname}", {op.out});'
            )
            L += gen_op_flops(op, op.out)
            L.append(f"  return {op.out};")
        L.append("}")
        return "\n".join(L)
    for a in diff:
        L.append(f"  auto {a.name}_autograd_meta = EagerUtils::nullable_autograd_meta({a.name});")
    metas = ", ".join(f"{a.name}_autograd_meta" for a in diff)
    L.append(f"  bool require_any_grad = EagerUtils::ComputeRequireGrad(HasGrad(), {metas});")
    out = op.inplace if inplace else op.out
    saved = op.saved()

    def make_node(indent):
        P = " " * indent
        R = [f"{P}grad_node = MakeShared<{op.node_class}>(1, {len(op.inputs)});"]
        for a in op.attrs:
            R.append(f"{P}grad_node->SetAttribute_{a.name}({a.name});")
        for slot, a in enumerate(op.inputs):
            if a.name in op.backward:
                R.append(f"{P}grad_node->SetGradOutMeta({a.name}, {slot});")
        for n, is_out in saved:
            if is_out or op.reads_slot_meta(n):
                continue
            if inplace and n == op.inplace and n not in op.no_need_buffer:
                # Note [In-place ops save a copy of what they overwrite]: the formulas
                # read x's value before the write, so the node saves a copy of that
                # value (api::assign, outside autograd) under x's autograd meta as it
                # is now: the wrapper keeps x's producer (alive through this node's
                # edge to it), so the recovered copy differentiates again into x's
                # history and gradients of every order are the out-of-place op's, as
                # PyTorch's saved original self.
                R.append(f"{P}{{")
                R.append(f"{P}  Tensor {n}_before(api::assign({n}).impl(), {n}.name());")
                R.append(f"{P}  {n}_before.set_autograd_meta({n}.mutable_autograd_meta());")
                R.append(f"{P}  grad_node->SetTensorWrapper_{n}({n}_before);")
                R.append(f"{P}}}")
            else:
                R.append(f"{P}grad_node->SetTensorWrapper_{n}({n});")
        return R

    def link_output(indent):
        P = " " * indent
        R = [
            f"{P}AutogradMeta* out_autograd_meta = EagerUtils::autograd_meta(&{out});",
            f"{P}EagerUtils::PassStopGradient(false, out_autograd_meta);",
            f"{P}EagerUtils::SetOutRankWithSlot(out_autograd_meta, 0);",
            f"{P}grad_node->SetGradInMeta({out}, 0);",
            f"{P}op_event.set_sequence_nr(grad_node->sequence_nr());  // Note [Forward-backward flows]",
        ]
        if op.view:
            R.append(f"{P}out_autograd_meta->SetIsView(true);")
        saved_outs = [n for n, is_out in saved if is_out]
        if saved_outs:
            # A saved output keeps a weak pointer to the node its meta names, so the
            # history is set first.
            R.append(f"{P}EagerUtils::SetHistory(out_autograd_meta, grad_node);")
            for n in saved_outs:
                R.append(f"{P}grad_node->SetTensorWrapper_{n}({out});")
        else:
            # The last use of the local: the node moves into the output's meta
            # (a reference count taken and dropped costs two atomic operations).
            R.append(f"{P}EagerUtils::SetHistory(out_autograd_meta, std::move(grad_node));")
        return R

    L.append(f"  std::shared_ptr<{op.node_class}> grad_node;")
    if inplace:
        L.append(f"  if (require_any_grad && !IsDifferentiableDType({out}.dtype())) {{")
        L.append("    require_any_grad = false;  // as out of place: integer results carry no grad")
        L.append("  }")
        L.append("  if (require_any_grad) {")
        L.append(f'    EagerUtils::CheckInplace({op.inplace}, "{fname}");')
        L += make_node(4)
        L.append("  }")
        L.append(f"  {api_call};")
        L.append(
            f'  if (FLAGS_check_nan_inf()) [[unlikely]] CheckTensorHasNanOrInf("{fname}", {out});'
        )
        L += gen_op_flops(op, out)
        L.append("  if (require_any_grad) {")
        L += link_output(4)
        L.append("  }")
        L.append(f"  return {out};")
    else:
        L.append(f"  Tensor {out} = {api_call};")
        L.append(
            f'  if (FLAGS_check_nan_inf()) [[unlikely]] CheckTensorHasNanOrInf("{fname}", {out});'
        )
        L += gen_op_flops(op, out)
        L.append(f"  if (require_any_grad && IsDifferentiableDType({out}.dtype())) {{")
        L += make_node(4)
        L += link_output(4)
        L.append("  }")
        L.append(f"  return {out};")
    L.append("}")
    return "\n".join(L)


def gen_eager(ops):
    h = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit.",
        "// Eager (dygraph) functions: the C++ API with autograd, oar::<op>.",
        "#pragma once",
        "",
        "#include <vector>",
        "",
        '#include "oar/core/tensor.h"',
        "",
        "namespace oar {",
        "",
    ]
    cc = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit.",
        '#include "oar/eager/dygraph_functions.h"',
        "",
        '#include "oar/api/api.h"',
        '#include "oar/api/nan_inf_check.h"',
        '#include "oar/autograd/eager_utils.h"',
        '#include "oar/api/op_flops.h"',
        '#include "oar/core/grad_mode.h"',
        '#include "oar/core/flags.h"',
        '#include "oar/core/profiler/record_event.h"',
        '#include "oar/eager/amp.h"',
        '#include "oar/eager/nodes.h"',
        '#include "oar/eager/promotion.h"',
        '#include "oar/eager/trace.h"',
        "",
        "namespace oar {",
        "",
    ]
    for op in ops:
        h.append(f"// {op.doc}")
        h.append(op.signature() + ";")
        cc.append(gen_traced(op, op.name, False))
        cc.append(gen_eager_function(op))
        cc.append("")
        if op.inplace:
            h.append(op.signature(op.name + "_", True) + ";")
            cc.append(gen_traced(op, op.name + "_", True))
            cc.append(gen_eager_function(op, True))
            cc.append("")
    h += ["", "}  // namespace oar", ""]
    cc += ["}  // namespace oar", ""]
    return "\n".join(h), "\n".join(cc)


def gen_nodes(ops):
    h = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit.",
        "// One grad node class per differentiable op (Paddle's MatmulGradNodeFinal, docs/design.md §4).",
        "#pragma once",
        "",
        "#include <string>",
        "#include <vector>",
        "",
        '#include "oar/autograd/grad_node.h"',
        '#include "oar/autograd/tensor_wrapper.h"',
        "",
        "namespace oar {",
        "",
    ]
    cc = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit.",
        '#include "oar/eager/nodes.h"',
        "",
        '#include "oar/eager/backward_helpers.h"',
        '#include "oar/eager/creation.h"',
        '#include "oar/eager/dygraph_functions.h"',
        "",
        "namespace oar {",
        "",
    ]
    for op in ops:
        if not op.backward:
            continue
        h.append(gen_node_class(op))
        h.append("")
        cc.append(gen_node_impl(op))
        cc.append("")
    h += ["}  // namespace oar", ""]
    cc += ["}  // namespace oar", ""]
    return "\n".join(h), "\n".join(cc)


def gen_op_list(ops):
    L = [
        "// Generated from src/oar/ops/*.yaml.",
        "// OAR_OP(name, \"tensor inputs (x[] = a list)\", \"differentiable inputs\")",
    ]
    for op in ops:
        ins = ",".join(a.name + ("[]" if a.is_tensor_list else "") for a in op.inputs)
        diff = ",".join(a.name for a in op.diff_inputs)
        L.append(f'OAR_OP({op.name}, "{ins}", "{diff}")')
    return "\n".join(L) + "\n"


def gen_invokers(ops):
    """{name, fn(tensors, attrs)} entries: the generic call the op tests use.
    Included by tests that define AttrMap and GetAttr<T>(attrs, name[, default])."""
    L = ["// Generated from src/oar/ops/*.yaml by tools/codegen/gen_ops.py. Do not edit."]
    for op in ops:
        args, i = [], 0
        for a in op.args:
            if a.is_tensor_list:
                args.append("t")
            elif a.is_tensor:
                args.append(f"t.at({i})")
                i += 1
            else:
                default = ""
                if a.default is not None:
                    default = ", " + ("std::vector<int64_t>{}" if a.default == "{}" else a.default)
                args.append(f'GetAttr<{a.member_type}>(a, "{a.name}"{default})')
        L.append(
            f'{{"{op.name}", [](const std::vector<Tensor>& t, const AttrMap& a) -> Tensor {{ '
            f'return ::oar::{op.name}({", ".join(args)}); }}}},'
        )
    return "\n".join(L) + "\n"


def gen_docs(ops):
    L = [
        "# Op reference",
        "",
        "Generated from `src/oar/ops/*.yaml` by `tools/codegen/gen_ops.py` into the build",
        "tree (`build/generated/docs/ops.md`) on every build. Every op is `oar::<op>` in C++",
        "and `oar.<op>` in Python;",
        "gradients are written in differentiable ops, so every order works.",
        "",
        "| op | signature | differentiable in | in-place | description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op in ops:
        sig = ", ".join(
            f"{a.type} {a.name}" + (f"={a.default}" if a.default is not None else "")
            for a in op.args
        )
        sig = sig.replace("DType::k", "").replace("|", "\\|")
        diff = ", ".join(a.name for a in op.diff_inputs) or "-"
        L.append(
            f"| `{op.name}` | `({sig})` | {diff} | {'`' + op.name + '_`' if op.inplace else '-'} | {op.doc} |"
        )
    return "\n".join(L) + "\n"


# ------------------------------------------------------------ formula validation
# Backward formulas are C++ expressions pasted into the generated grad nodes. A
# misspelt name would surface as a compile error deep in generated code, so
# every identifier is resolved here first, and an unknown one fails generation
# with the op and the name.
HELPER_HEADERS = ("src/oar/eager/backward_helpers.h", "src/oar/eager/creation.h")
FORMULA_KEYWORDS = {"true", "false", "DType"}


def helper_functions(root):
    """Names of the C++ functions formulas may call besides the ops."""
    names = set()
    for rel in HELPER_HEADERS:
        with open(os.path.join(root, rel)) as f:
            names |= set(re.findall(r"^\S.*?\b(\w+)\(", f.read(), re.M))
    return names


def formula_identifiers(formula):
    """The free identifiers of a formula: not members (x.dtype()), not scoped
    (DType::kFloat32), not numbers."""
    out = []
    for m in re.finditer(r"[A-Za-z_]\w*", formula):
        before = formula[: m.start()].rstrip()
        if before.endswith(".") or before.endswith("::"):
            continue
        if m.start() > 0 and (formula[m.start() - 1].isdigit() or formula[m.start() - 1] == "."):
            continue  # 1e-3, 2.0f
        out.append(m.group(0))
    return out


def validate_formulas(ops, root):
    known_calls = {o.name for o in ops} | {o.name + "_" for o in ops if o.inplace}
    known_calls |= helper_functions(root)
    if "assign" not in known_calls and any(
        op.inplace in dict(op.saved()) and op.inplace not in op.no_need_buffer
        for op in ops
        if op.inplace
    ):
        raise ValueError(
            "ops.yaml: an in-place op saves the input it overwrites, which needs "
            "the op `assign` to copy it (Note [In-place ops save a copy of what "
            "they overwrite])"
        )
    for op in ops:
        scope = {a.name for a in op.args} | {op.out, op.grad_out} | FORMULA_KEYWORDS
        for target, formula in op.backward.items():
            for name in formula_identifiers(formula):
                if name not in scope and name not in known_calls:
                    raise ValueError(
                        f"ops.yaml: op '{op.name}', backward of '{target}': unknown name "
                        f"'{name}' in `{formula}`; a formula may use the op's arguments "
                        f"({', '.join(a.name for a in op.args)}), its output '{op.out}', "
                        f"'{op.grad_out}', the declared ops and the helpers of "
                        f"{' and '.join(HELPER_HEADERS)}"
                    )
            if len(formula) > 100:
                raise ValueError(
                    f"ops.yaml: op '{op.name}', backward of '{target}' is {len(formula)} "
                    f"characters; move a formula longer than a line into a named helper in "
                    f"src/oar/eager/backward_helpers.h"
                )


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def op_files(path):
    """The declaration files: `path` itself, or every <section>.yaml of the folder
    `path` (src/oar/ops), in name order."""
    if not os.path.isdir(path):
        return [path]
    return [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith(".yaml")]


def load_ops(path):
    ops = []
    for file in op_files(path):
        with open(file) as f:
            decls = yaml.safe_load(f) or []
        for d in decls:
            op = Op(d)
            op.section = os.path.splitext(os.path.basename(file))[0]
            ops.append(op)
    names = [o.name for o in ops]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate op declarations: {sorted(dup)}")
    return ops


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--yaml", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    ops = load_ops(args.yaml)
    validate_formulas(
        ops, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(args.yaml))))
    )
    if os.path.isdir(args.yaml):  # a section's kernels live in <section>_kernels.cc
        kernels = os.path.join(os.path.dirname(os.path.abspath(args.yaml)), "kernels", "cpu")
        for section in sorted({op.section for op in ops}):
            if not os.path.exists(os.path.join(kernels, f"{section}_kernels.cc")):
                raise ValueError(
                    f"src/oar/ops/{section}.yaml: no kernel file "
                    f"src/oar/kernels/cpu/{section}_kernels.cc for its ops"
                )
    out = args.out
    api_h, api_cc = gen_api(ops)
    write_if_changed(f"{out}/oar/api/api.h", api_h)
    write_if_changed(f"{out}/oar/api/api.cc", api_cc)
    eh, ecc = gen_eager(ops)
    write_if_changed(f"{out}/oar/eager/dygraph_functions.h", eh)
    write_if_changed(f"{out}/oar/eager/dygraph_functions.cc", ecc)
    nh, ncc = gen_nodes(ops)
    write_if_changed(f"{out}/oar/eager/nodes.h", nh)
    write_if_changed(f"{out}/oar/eager/nodes.cc", ncc)
    write_if_changed(f"{out}/oar/eager/op_list.inc", gen_op_list(ops))
    write_if_changed(f"{out}/oar/eager/op_invoke.inc", gen_invokers(ops))
    write_if_changed(f"{out}/oar/jit/op_replay.inc", gen_replay(ops))
    write_if_changed(f"{out}/docs/ops.md", gen_docs(ops))
    write_if_changed(f"{out}/oar/bindings/eager_op_function.cc", gen_bindings.generate(ops))


if __name__ == "__main__":
    main()
