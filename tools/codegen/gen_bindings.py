"""The python-c binding of every declared op (seeds §2.2), generated from ops.yaml:
oar._C.<op>(...) functions and the Tensor methods x.<op>(...) / x.<op>_(...)."""

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
    L = [f"static PyObject* {cname}(PyObject* self, PyObject* const* args, Py_ssize_t nargs,",
         "                            PyObject* kwnames) {",
         "  OAR_PY_TRY"]
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
        src = "self" if method and op.inplace == first.name else "objs[%d]" % [a.name for a in args].index(op.inplace)
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


def _has_method(op):
    return (op.args and op.args[0].is_tensor and op.args[0].name == "x"
            and not op.name.endswith("_grad"))


def generate(ops):
    L = ["// Generated from src/oar/ops.yaml by tools/codegen/gen_bindings.py. Do not edit.",
         '#include "oar/bindings/arg_parse.h"', '#include "oar/bindings/op_bindings.h"',
         '#include "oar/eager/dygraph_functions.h"', "", "namespace oar::py {", "namespace {", ""]
    functions, methods = [], []
    for op in ops:
        name, code = _function(op)
        L += [code, ""]
        functions.append((op.name, name, op.doc))
        if op.inplace:
            name, code = _function(op, inplace=True)
            L += [code, ""]
            functions.append((op.name + "_", name, "In-place " + op.doc))
        if _has_method(op):
            name, code = _function(op, method=True)
            L += [code, ""]
            methods.append((op.name, name, op.doc))
            if op.inplace:
                name, code = _function(op, method=True, inplace=True)
                L += [code, ""]
                methods.append((op.name + "_", name, "In-place " + op.doc))
    L.append("}  // namespace")
    L.append("")

    def table(var, entries):
        T = [f"PyMethodDef {var}[] = {{"]
        for pyname, cname, doc in entries:
            doc = doc.replace("\\", "\\\\").replace('"', '\\"')
            T.append(f'    {{"{pyname}", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>({cname})),')
            T.append(f'     METH_FASTCALL | METH_KEYWORDS, "{doc}"}},')
        T.append("    {nullptr, nullptr, 0, nullptr}};")
        return T

    L += table("g_op_functions", functions)
    L.append("")
    L += table("g_op_methods", methods)
    L += ["", "}  // namespace oar::py", ""]
    return "\n".join(L)
