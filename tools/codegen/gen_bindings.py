"""The python-c binding of every declared op (docs/design.md §4), generated from src/oar/ops/:
oar._C.<op>(...) functions and the Tensor methods x.<op>(...) / x.<op>_(...), with their
docstrings (text signature, summary, Args, Returns, Examples)."""

import textwrap

PARSERS = {
    "bool": "CastPyArg2Boolean",
    "int": "CastPyArg2Long",
    "float": "CastPyArg2Double",
    "Scalar": "CastPyArg2Scalar",
    "int[]": "CastPyArg2IntArray",
    "DataType": "CastPyArg2DType",
}


def _attr_default(a):
    if a.default is None:
        return "std::nullopt"
    if a.type == "bool":
        return a.default
    if a.type == "int[]":
        return "std::vector<int64_t>{}" if a.default == "{}" else f"std::vector<int64_t>{a.default}"
    return a.default


def _convert(op_name, a, pos, obj):
    if a.is_tensor_list:
        return f'std::vector<Tensor> {a.name} = GetTensorListFromArgs("{op_name}", "{a.name}", {obj}, {pos});'
    if a.is_tensor:
        return f'const Tensor& {a.name} = GetTensorFromArgs("{op_name}", "{a.name}", {obj}, {pos});'
    parser = PARSERS[a.type]
    default = _attr_default(a)
    if a.type == "bool":
        return f'const bool {a.name} = {parser}({obj}, "{op_name}", "{a.name}", {pos}, {default});'
    return f'const auto {a.name} = {parser}({obj}, "{op_name}", "{a.name}", {pos}, {default});'


def _function(op, method=False, inplace=False):
    """A METH_FASTCALL|METH_KEYWORDS function; as a method, self is the first tensor."""
    fname = op.name + ("_" if inplace else "")
    cname = ("tensor_method_" if method else "eager_api_") + fname
    args = op.args[1:] if method else op.args
    n = len(args)
    L = [
        f"static PyObject* {cname}(PyObject* self, PyObject* const* args, Py_ssize_t nargs,",
        "                            PyObject* kwnames) {",
        "  OAR_PY_TRY",
    ]
    if n:
        names = ", ".join(f'"{a.name}"' for a in args)
        L.append(f"  static const char* const kNames[] = {{{names}}};")
        L.append(f"  PyObject* objs[{n}];")
        L.append(f'  ParseArgs("{fname}", kNames, {n}, args, nargs, kwnames, objs);')
    else:
        L.append(f'  ParseArgs("{fname}", nullptr, 0, args, nargs, kwnames, nullptr);')
    first = op.args[0]
    if method:
        L.append(f"  Tensor& {first.name} = AsTensor(self);")
    for i, a in enumerate(args):
        pos = i + (1 if method else 0)
        if inplace and a.name == op.inplace:
            L.append(f'  GetTensorFromArgs("{fname}", "{a.name}", objs[{i}], {pos});')
            L.append(f"  Tensor& {a.name} = AsTensor(objs[{i}]);")
        else:
            L.append("  " + _convert(fname, a, pos, f"objs[{i}]"))
    call = f"::oar::{fname}({', '.join(a.name for a in op.args)})"
    tensor_args = [a for a in op.inputs]
    release = " || ".join(f"WorthReleasingGil({a.name})" for a in tensor_args) or "false"
    if inplace:
        L.append(f"  if ({release}) {{")
        L.append("    GilRelease nogil;")
        L.append(f"    {call};")
        L.append("  } else {")
        L.append(f"    {call};")
        L.append("  }")
        src = (
            "self"
            if method and op.inplace == first.name
            else "objs[%d]" % [a.name for a in args].index(op.inplace)
        )
        L.append(f"  Py_INCREF({src});")
        L.append(f"  return {src};")
    else:
        L.append("  Tensor result;")
        L.append(f"  if ({release}) {{")
        L.append("    GilRelease nogil;")
        L.append(f"    result = {call};")
        L.append("  } else {")
        L.append(f"    result = {call};")
        L.append("  }")
        L.append("  return ToPyObject(std::move(result));")
    L.append("  OAR_PY_CATCH")
    L.append("}")
    return cname, "\n".join(L)


def _py_default(a):
    """A C++ default as the Python literal the binding accepts."""
    d = a.default
    if d is None:
        return None
    if a.type == "bool":
        return {"true": "True", "false": "False"}[d]
    if a.type == "int[]":  # an empty list means "all axes" / "none", spelt None by Paddle
        return "None" if d == "{}" else "[" + d.strip("{}") + "]"
    if a.type == "DataType":
        return "None" if d == "DType::kUndefined" else repr(d.replace("DType::k", "").lower())
    return d


def text_signature(op, method=False, inplace=False):
    """The first line of the docstring in the form CPython reads as __text_signature__,
    so that help() and inspect.signature() show the real parameters."""
    params = ["$self"] if method else []
    for a in op.args[1:] if method else op.args:
        d = _py_default(a)
        params.append(a.name if d is None else f"{a.name}={d}")
    params.append("name=None")
    return f"{op.name}{'_' if inplace else ''}({', '.join(params)})\n--\n\n"


# ---- docstrings: signature, summary, Args, Returns, Examples (Paddle's layout) ----------
# An argument's text is the op's `args_doc:` entry, else ARG_DOCS by name, else by type.
ARG_DOCS = {
    "x": "The input tensor.",
    "y": "The second operand, broadcast against x.",
    "axis": "The axis.",
    "keepdim": "Keep the reduced axes as dimensions of size 1.",
    "dtype": "The data type of the result.",
    "shape": "The shape of the result.",
    "axes": "The axes to slice.",
    "starts": "Where the range of each axis starts (negative counts from the end).",
    "ends": "Where the range of each axis ends, excluded (negative counts from the end).",
    "strides": "The step along each axis (negative walks backwards).",
    "name": "Unused, for Paddle compatibility.",
    "Tensor": "A tensor.",
    "Tensor[]": "The tensors.",
    "bool": "A flag.",
    "int": "An integer.",
    "float": "A number.",
    "Scalar": "A number.",
    "int[]": "A list of integers.",
    "DataType": "A data type.",
}
PY_TYPES = {
    "Tensor": "Tensor",
    "Tensor[]": "list[Tensor]|tuple[Tensor]",
    "bool": "bool",
    "int": "int",
    "float": "float",
    "Scalar": "float|int|bool",
    "int[]": "int|list[int]|tuple[int]",
    "DataType": "str|oar.dtype",
}
# The Returns line by InferMeta, unless the op declares `returns:`.
RETURNS = {
    "ElementwiseInferMeta": "The broadcast shape of x and y, in their promoted dtype.",
    "CompareInferMeta": "A bool tensor of the broadcast shape of x and y.",
    "UnchangedInferMeta": "The same shape and dtype as x.",
    "ReduceInferMeta": "x reduced over axis (the reduced axes kept as size 1 with keepdim).",
    "SoftmaxInferMeta": "The same shape and dtype as x.",
    "SameShapeGradInferMeta": "The gradient with respect to the forward input.",
}


def _wrap(text, indent):
    return textwrap.fill(
        text,
        92,
        initial_indent=" " * indent,
        subsequent_indent=" " * (indent + 4),
        break_on_hyphens=False,
    )


def docstring(op, method=False, inplace=False):
    """The text after the signature line: summary, Args, Returns and Examples."""
    summary = op.doc
    returns = "Tensor: " + (op.returns or RETURNS.get(op.infer_meta, "The result."))
    if inplace:
        summary = f"In-place {op.name}, writing into {op.inplace}: {op.doc}"
        returns = f"Tensor: {op.inplace}, modified in place."
    L = [summary, "", "Args:"]
    args = op.args[1:] if method else op.args
    for a in args:
        d = _py_default(a)
        t = PY_TYPES[a.type] + ("|None" if d == "None" else "") + (", optional" if d else "")
        text = op.args_doc.get(a.name) or ARG_DOCS.get(a.name) or ARG_DOCS.get(a.type, "")
        L.append(_wrap(f"{a.name} ({t}): {text}" + (f" Default: {d}." if d else ""), 4))
    L.append(_wrap("name (str|None, optional): " + ARG_DOCS["name"] + " Default: None.", 4))
    L += ["", "Returns:", _wrap(returns, 4)]
    if op.example:
        L += ["", "Examples:", "    >>> import oar"] + ["    " + l for l in op.example.split("\n")]
    return "\n".join(L)


def generate(ops):
    L = [
        "// Generated from src/oar/ops/*.yaml by tools/codegen/gen_bindings.py. Do not edit.",
        '#include "oar/bindings/arg_parse.h"',
        '#include "oar/bindings/op_bindings.h"',
        '#include "oar/eager/dygraph_functions.h"',
        "",
        "namespace oar::py {",
        "namespace {",
        "",
    ]
    # Every op is a function of oar._C (internal ones too: tests and the Python
    # wrappers call them there); only the public ones are exported as oar.<op>.
    functions, methods, public = [], [], []
    for op in ops:
        name, code = _function(op)
        L += [code, ""]
        functions.append((op.name, name, text_signature(op) + docstring(op)))
        if "function" in op.python:
            public.append(op.name)
        if op.inplace:
            name, code = _function(op, inplace=True)
            L += [code, ""]
            functions.append(
                (
                    op.name + "_",
                    name,
                    text_signature(op, inplace=True) + docstring(op, inplace=True),
                )
            )
            if "function" in op.python:
                public.append(op.name + "_")
        if "method" in op.python:
            name, code = _function(op, method=True)
            L += [code, ""]
            methods.append((op.name, name, text_signature(op, method=True) + docstring(op, True)))
            if op.inplace:
                name, code = _function(op, method=True, inplace=True)
                L += [code, ""]
                methods.append(
                    (
                        op.name + "_",
                        name,
                        text_signature(op, method=True, inplace=True) + docstring(op, True, True),
                    )
                )
    L.append("}  // namespace")
    L.append("")

    def table(var, entries):
        T = [f"PyMethodDef {var}[] = {{"]
        for pyname, cname, doc in entries:
            doc = doc.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            T.append(
                f'    {{"{pyname}", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>({cname})),'
            )
            T.append(f'     METH_FASTCALL | METH_KEYWORDS, "{doc}"}},')
        T.append("    {nullptr, nullptr, 0, nullptr}};")
        return T

    L += table("g_op_functions", functions)
    L.append("")
    L += table("g_op_methods", methods)
    L.append("")
    L.append("// The ops exported as oar.<op> (oar.__all__ is built from this list).")
    L.append(
        "const char* const g_public_ops[] = {" + ", ".join(f'"{n}"' for n in public) + ", nullptr};"
    )
    L += ["", "}  // namespace oar::py", ""]
    return "\n".join(L)
