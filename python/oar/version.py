"""oar.version: the version of this oar build, with the fields of Paddle's paddle.version
answered for a CPU-only build (no CUDA, cuDNN, ROCm, XPU, TensorRT or CINN)."""

from __future__ import annotations

major = "0"
minor = "1"
patch = "0"
rc = "0"
full_version = f"{major}.{minor}.{patch}"
istaged = True
is_tagged = True
with_mkl = "OFF"  # oar's BLAS is OpenBLAS, its convolutions oneDNN
cuda_version = "False"
cudnn_version = "False"
hip_version = None
nccl_version = "0"
xpu_xre_version = "False"
xpu_xccl_version = "False"
xpu_xhpc_version = "False"
cinn_version = "False"
tensorrt_version = "None"
compiled_cuda_archs: list[int] = []

__all__ = [
    "cuda",
    "cudnn",
    "nccl",
    "show",
    "xpu",
    "xpu_xre",
    "xpu_xccl",
    "xpu_xhpc",
    "tensorrt",
    "cuda_archs",
    "cinn",
    "hip",
    "mkl",
    "full_version",
    "major",
    "minor",
    "patch",
    "rc",
    "istaged",
    "with_mkl",
    "paddle_version",
]

# The Paddle release whose API oar follows (oar.utils.require_version checks against it).
paddle_version = "3.3.1"

# As in Paddle, the versions are strings ('False' for a library oar is not built with),
# and `cuda` is a string that can also be called (paddle.version.cuda()).


class CudaVersion(str):
    """The CUDA version oar was built with, 'False' (none); callable, as Paddle's."""

    def __call__(self):
        return str(self)

    def __repr__(self):
        return f"CudaVersion('{self}')"


cuda = CudaVersion(cuda_version)
hip = hip_version  # Paddle's is the value itself (None), not a function


def cudnn() -> str:
    """The cuDNN version oar was built with: 'False' (none)."""
    return cudnn_version


def nccl() -> str:
    """The NCCL version oar was built with: '0' (none)."""
    return nccl_version


def xpu() -> str:
    """The XPU toolkit version: 'False' (none)."""
    return xpu_xhpc_version


def xpu_xre() -> str:
    """The XPU runtime version: 'False' (none)."""
    return xpu_xre_version


def xpu_xccl() -> str:
    """The XPU collective library version: 'False' (none)."""
    return xpu_xccl_version


def xpu_xhpc() -> str:
    """The XPU math library version: 'False' (none)."""
    return xpu_xhpc_version


def tensorrt() -> str:
    """The TensorRT version: 'None' (not built with it)."""
    return tensorrt_version


def cinn() -> str:
    """The CINN compiler version: 'False' (oar runs eagerly, without CINN)."""
    return cinn_version


def cuda_archs() -> list[int]:
    """The CUDA architectures oar was compiled for: [] (none)."""
    return compiled_cuda_archs


def mkl() -> str:
    """Whether oar uses MKL: 'OFF' (its BLAS is OpenBLAS)."""
    return with_mkl


def show() -> None:
    """Prints the version fields, one per line (Paddle's layout)."""
    print("full_version:", full_version)
    print("major:", major)
    print("minor:", minor)
    print("patch:", patch)
    print("rc:", rc)
    print("cuda:", cuda_version)
    print("cudnn:", cudnn_version)
    print("hip:", hip_version)
    print("nccl:", nccl_version)
    print("xpu_xre:", xpu_xre_version)
    print("xpu_xccl:", xpu_xccl_version)
    print("xpu_xhpc:", xpu_xhpc_version)
    print("cinn:", cinn_version)
    print("tensorrt_version:", tensorrt_version)
    print("cuda_archs:", compiled_cuda_archs)
