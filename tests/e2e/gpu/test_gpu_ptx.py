"""The GPU path, compile only: every example gives PTX that ptxas assembles."""

import pathlib
import re

import pytest
from conftest import ROOT, mgc

from mg_xdsl.backend.ptx import GPU_ARCHS, UnknownGpuArch, compile_ptx, find_ptxas, gpu_module, ptx, ptxas_check

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.mg"))


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


UNKNOWN_FOO = (
    "unknown GPU architecture 'foo' (known: sm_50, sm_52, sm_53, sm_60, sm_61, sm_62, "
    "sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, sm_90a, sm_100, "
    "sm_100a, sm_101, sm_101a, sm_103, sm_103a, sm_110, sm_110a, sm_120, sm_120a, "
    "sm_121, sm_121a)"
)


def test_unknown_arch_is_a_usage_error():
    """LLVM only warns about a processor it does not know (six times) and emits PTX for it
    anyway; mgc must refuse the name and say which ones it knows."""
    p = mgc("ptx", "--gpu-arch", "foo", "examples/01_relu.mg")
    assert (p.returncode, p.stdout) == (2, b"")
    assert p.stderr.decode() == f"mgc: error: {UNKNOWN_FOO}\n"


def test_unknown_arch_through_the_api():
    source = "def f(a: tensor[2x2]) = relu(a)"
    with pytest.raises(UnknownGpuArch) as e:
        compile_ptx(source, arch="foo")
    assert str(e.value) == UNKNOWN_FOO
    with pytest.raises(UnknownGpuArch, match=r"^unknown GPU architecture 'sm_8' \(known: sm_50, "):
        ptx(gpu_module(source), "sm_8")


def test_every_known_arch_is_known_to_llvm(capfd):
    """Each name in GPU_ARCHS gets PTX for itself, without LLVM's 'not a recognized
    processor' warning (which it prints on the process's stderr, hence capfd)."""
    module = gpu_module("def f(a: tensor[?x?]) = relu(a)")
    capfd.readouterr()
    for arch in GPU_ARCHS:
        assert f"\n.target {arch}\n" in ptx(module, arch)
    assert "not a recognized processor" not in capfd.readouterr().err
