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
tensorrt_version = None
cinn_version = None

__all__ = ["cuda", "cudnn", "nccl", "show", "xpu", "xpu_xre", "xpu_xccl", "xpu_xhpc",
           "tensorrt", "cinn", "hip", "full_version", "major", "minor", "patch", "rc",
           "istaged", "with_mkl", "cuda_archs", "paddle_version"]


def cuda():
    """The CUDA version oar was built with: False (none)."""
    return False


def cudnn():
    """The cuDNN version oar was built with: False (none)."""
    return False


def hip():
    """The ROCm (HIP) version oar was built with: None."""
    return None


def nccl():
    """The NCCL version oar was built with: 0 (none)."""
    return 0


def xpu():
    """The XPU toolkit version: False (none)."""
    return False


def xpu_xre():
    """The XPU runtime version: False (none)."""
    return False


def xpu_xccl():
    """The XPU collective library version: False (none)."""
    return False


def xpu_xhpc():
    """The XPU math library version: False (none)."""
    return False


def tensorrt():
    """The TensorRT version: None (not built with it)."""
    return None


def cinn():
    """The CINN compiler version: False (oar runs eagerly, without CINN)."""
    return False


def show():
    """Prints the version fields, one per line."""
    print(f"full_version: {full_version}")
    print(f"major: {major}")
    print(f"minor: {minor}")
    print(f"patch: {patch}")
    print(f"rc: {rc}")
    print(f"cuda: {cuda()}")
    print(f"cudnn: {cudnn()}")
    print(f"hip: {hip()}")
    print(f"nccl: {nccl()}")
    print(f"xpu_xre: {xpu_xre()}")
    print(f"xpu_xccl: {xpu_xccl()}")
    print(f"xpu_xhpc: {xpu_xhpc()}")
    print(f"cinn: {cinn()}")
    print(f"tensorrt_version: {tensorrt()}")


# The Paddle release whose API oar follows (oar.utils.require_version checks against it).
paddle_version = "3.3.1"


def cuda_archs():
    """The CUDA architectures oar was built for: [] (none)."""
    return []
