"""``mgc``: the Mountain Goat compiler driver.

    mgc run   prog.mg                 compile to native code in memory and run it
    mgc run   prog.mg --gpu           the same, with every parallel loop nest a GPU kernel
                                      (--gpu-emulated: those kernels run on the CPU)
    mgc build prog.mg -o exe          a native executable (linked by the system C compiler)
    mgc lib   prog.mg -o dir          dir/prog.o with every def, and the C++ header dir/prog.h
    mgc mlir  prog.mg [--stage S]     print the IR after stage S (mg, affine, scf, cf, llvm)
    mgc llvm  prog.mg [--opt N]       print the LLVM IR (optimised at -ON if N > 0)
    mgc ptx   prog.mg [--check]       PTX for the program's kernels, one per parallel loop nest

A compile error is printed as ``PATH:LINE: error: MESSAGE`` and exits with status 1.
``MGC_KEEP=dir`` keeps every intermediate form of the compilation in ``dir``.
"""

import argparse
import os
import sys

from mg_xdsl.pipeline import STAGES, STAGE_NAMES

EPILOG = """stages (for --stage), in pipeline order:
""" + "\n".join(
    f"  {s.name:<7} {s.description}" + (f"  [{', '.join(s.passes)}]" if s.passes else "")
    for s in STAGES
) + """

environment:
  MGC_KEEP=dir   keep every intermediate file (IR after each stage, LLVM IR) in dir
  MGC_DEBUG=1    show Python tracebacks for internal compiler errors

examples:
  mgc run examples/07_mlp_layer.mg
  mgc run --gpu examples/07_mlp_layer.mg          (kernels on an NVIDIA GPU)
  mgc run --gpu-emulated examples/07_mlp_layer.mg (the same kernels, run on the CPU)
  mgc mlir examples/01_relu.mg --stage affine
  mg-opt examples/01_relu.mg -p lower-mg-to-affine,lower-affine   (one pass at a time)
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mgc",
        description="The Mountain Goat compiler: .mg source -> mg dialect -> affine -> "
        "scf -> cf -> LLVM dialect -> LLVM IR -> native code.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def command(name: str, help: str) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help, description=help, epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        c.add_argument("file", help="the .mg program")
        if name != "ptx":
            c.add_argument("--reference", action="store_true",
                           help="lower with the chapter's pipeline: one loop nest per op, no "
                           "fusion, tiling, vectors or threads (the optimised one is the default)")
        return c

    run = command("run", "compile the program to native code in memory and run it")
    backend_help = ("who lowers the affine-level IR to LLVM: this project's passes (xdsl, the "
                    "default) or upstream MLIR's mlir-opt-22 (mlir)")
    run.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    run.add_argument("--opt", type=int, default=2, choices=range(4), metavar="N",
                     help="LLVM optimisation level 0-3 (default 2)")
    gpu = run.add_mutually_exclusive_group()
    gpu.add_argument("--gpu", dest="gpu", action="store_const", const="cuda",
                     help="run every parallel loop nest as a kernel on the NVIDIA GPU (through "
                     "cuda-python's driver API; pip install 'mg-xdsl[gpu]')")
    gpu.add_argument("--gpu-emulated", dest="gpu", action="store_const", const="emulated",
                     help="the same kernels and launches, but the kernels run on the CPU one "
                     "thread at a time: tests the GPU path on a machine without a GPU")
    run.add_argument("--time", action="store_true",
                     help="report on stderr how long each step took")
    build = command("build", "compile the program to a native executable")
    build.add_argument("-o", dest="output", metavar="EXE",
                       help="the executable to write (default: the program's name without .mg)")
    build.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    build.add_argument("--opt", type=int, default=2, choices=range(4), metavar="N",
                       help="LLVM optimisation level 0-3 (default 2)")
    lib = command("lib", "compile the program's defs to DIR/NAME.o and a C++ header DIR/NAME.h")
    lib.add_argument("-o", dest="output", metavar="DIR", default=".",
                     help="the directory to write into (default: the current one)")
    lib.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    lib.add_argument("--opt", type=int, default=2, choices=range(4), metavar="N",
                     help="LLVM optimisation level 0-3 (default 2)")
    ptx = command("ptx", "print PTX for the program's kernels (one per parallel loop nest)")
    ptx.add_argument("--gpu-arch", default="sm_80", metavar="SM",
                     help="the NVIDIA architecture to compile for (default sm_80; e.g. sm_90)")
    ptx.add_argument("--check", action="store_true",
                     help="also assemble the PTX with ptxas and report the result on stderr")
    mlir = command("mlir", "print the program's MLIR after a stage (default: the mg dialect)")
    mlir.add_argument("--stage", choices=STAGE_NAMES, default="mg",
                      help="print the IR after this stage (default mg)")
    mlir.add_argument("--generic", action="store_true",
                      help="print ops in MLIR's generic form")
    mlir.add_argument("--debuginfo", action="store_true",
                      help="print source locations (loc(...)) on the ops")
    llvm = command("llvm", "print the program's LLVM IR")
    llvm.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    llvm.add_argument("--opt", type=int, default=0, choices=range(4), metavar="N",
                      help="optimise at -ON before printing (default 0: as translated)")
    return p


def read_source(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        print(f"mgc: error: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(1)


def print_module(module, generic: bool, debuginfo: bool) -> None:
    from xdsl.printer import Printer

    Printer(stream=sys.stdout, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    print()


def execute(args: argparse.Namespace) -> int:
    from mg_xdsl.driver import Compilation

    comp = Compilation(read_source(args.file), args.file, lib=args.command == "lib",
                       backend=getattr(args, "backend", "xdsl"), gpu=getattr(args, "gpu", None),
                       optimise=not getattr(args, "reference", False))
    if comp.gpu and comp.backend != "xdsl":
        print("mgc: error: --gpu lowers with this project's passes; drop --backend mlir", file=sys.stderr)
        return 2
    if args.command == "build":
        out = args.output or os.path.splitext(os.path.basename(args.file))[0]
        comp.build(out, args.opt)
        return 0
    if args.command == "lib":
        obj, header = comp.library(args.output, args.opt)
        print(f"wrote {obj} and {header}")
        return 0
    if args.command == "ptx":
        from mg_xdsl.backend.ptx import compile_ptx, ptxas_check

        text = compile_ptx(read_source(args.file), args.file, args.gpu_arch)
        print(text, end="")
        if args.check:
            ok, message = ptxas_check(text, args.gpu_arch)
            print(f"mgc: ptxas -arch={args.gpu_arch}: {'ok' if ok else 'FAILED'}"
                  + (f"\n{message}" if message else ""), file=sys.stderr)
            return 0 if ok else 1
        return 0
    if args.command == "mlir":
        print_module(comp.mlir(args.stage), args.generic, args.debuginfo)
        return 0
    if args.command == "llvm":
        if args.opt:
            from mg_xdsl.backend.jit import optimise

            print(optimise(comp.llvm_ir(), args.opt), end="")
        else:
            print(comp.llvm_ir(), end="")
        return 0
    engine = comp.engine(args.opt)
    import time

    start = time.perf_counter()
    engine.run_main()
    comp.timed("run", time.perf_counter() - start)
    if args.time:
        for name, seconds in comp.times.items():
            print(f"mgc: {name:<28} {seconds * 1000:8.1f} ms", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from mg_xdsl.backend.gpu_runtime import GpuError
    from mg_xdsl.backend.native import LinkError
    from mg_xdsl.backend.upstream import UpstreamToolMissing
    from mg_xdsl.frontend import MgError

    try:
        status = execute(args)
    except MgError as e:
        print(e.render(), file=sys.stderr)
        status = 1
    except (LinkError, UpstreamToolMissing) as e:
        print(f"mgc: error: {e}", file=sys.stderr)
        status = 1
    except GpuError as e:
        print(f"mgc: error: GPU: {e}", file=sys.stderr)
        print("mgc: (--gpu-emulated runs the same kernels on the CPU instead)", file=sys.stderr)
        status = 1
    except BrokenPipeError:  # e.g. `mgc mlir prog.mg | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # a bug in the compiler, not in the program
        if os.environ.get("MGC_DEBUG"):
            raise
        print(f"mgc: internal compiler error: {type(e).__name__}: {e}", file=sys.stderr)
        print("mgc: (set MGC_DEBUG=1 for the Python traceback)", file=sys.stderr)
        status = 3
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
