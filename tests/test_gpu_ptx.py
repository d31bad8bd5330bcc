"""The GPU path, compile only: every example gives PTX that ptxas assembles."""

import pathlib
import re

import pytest

from mg_xdsl.backend.ptx import compile_ptx, find_ptxas, ptxas_check

EXAMPLES = sorted(p for p in (pathlib.Path(__file__).parent.parent / "examples").glob("*.mg"))


@pytest.fixture(scope="module")
def ptx_of():
    cache: dict[tuple[str, str], str] = {}

    def get(path: pathlib.Path, arch: str = "sm_80") -> str:
        key = (str(path), arch)
        if key not in cache:
            cache[key] = compile_ptx(path.read_text(), str(path), arch)
        return cache[key]

    return get


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_ptx_is_produced(path, ptx_of):
    ptx = ptx_of(path)
    assert ".target sm_80" in ptx
    assert ".entry" in ptx


def _kernels(ptx: str) -> dict[str, str]:
    parts = re.split(r"\.visible \.entry (\w+)\(", ptx)
    return dict(zip(parts[1::2], parts[2::2]))


def test_gpu_layer_kernels(ptx_of):
    path = next(p for p in EXAMPLES if p.stem == "10_gpu_layer")
    kernels = _kernels(ptx_of(path))
    assert list(kernels) == ["f_kernel", "f_kernel_0", "f_kernel_1", "f_kernel_2", "f_kernel_3"]
    # relu: NaN-propagating max (LLVM's NVPTX back end has no max.NaN.f64; it emits
    # max.f64 plus a NaN select).
    relu = kernels["f_kernel_1"]
    assert "max.f64" in relu and "setp.nan.f64" in relu
    for body in kernels.values():
        assert "%ctaid.x" in body and "%tid.x" in body
    # Only the reduction's accumulation kernel keeps a loop (a backward branch).
    loops = [name for name, body in kernels.items() if "bra.uni" in body]
    assert loops == ["f_kernel_3"]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_ptxas_assembles(path, arch, ptx_of):
    if find_ptxas() is None:
        pytest.skip("ptxas not found: pip install 'mg-xdsl[gpu]' (nvidia-cuda-nvcc) or put ptxas on PATH")
    ok, message = ptxas_check(ptx_of(path, arch), arch)
    assert ok, message
