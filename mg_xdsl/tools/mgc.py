"""``mgc``: the Mountain Goat compiler driver.

    mgc run   prog.mg                 compile to native code in memory and run it
    mgc run   prog.mg lr=0.05         the same, setting the program's run-time argument lr
    mgc run   prog.mg --gpu           the same, with every parallel loop nest a GPU kernel
                                      (--gpu-emulated: those kernels run on the CPU)
    mgc build prog.mg -o exe          a native executable (linked by the system C compiler)
    mgc lib   prog.mg -o dir          dir/prog.o with every def, and the C++ header dir/prog.h
    mgc mlir  prog.mg [--stage S]     print the IR after stage S (mg, linalg, affine, scf, cf, llvm)
    mgc llvm  prog.mg [--opt N]       print the LLVM IR (optimised at -ON if N > 0)
    mgc ptx   prog.mg [--check]       PTX for the program's kernels, one per parallel loop nest
    mgc pipeline [--reference] [--cpu NAME]   the passes mgc runs, as one ``mg-opt -p`` argument

``-`` for the program reads it from standard input (``<stdin>`` in messages).
A compile error is printed as ``PATH:LINE: error: MESSAGE`` and exits with status 1; the
front end's warnings (``PATH:LINE: warning: MESSAGE``) go to stderr and change neither
the output nor the exit status (``-w``/``--no-warnings`` silences them).
``MGC_KEEP=dir`` keeps every intermediate form of the compilation in ``dir``.

``mgc run`` keeps the code it compiles in an on-disk cache (``mg_xdsl.backend.cache``) and
runs a program it has compiled before without compiling it again. Such a run must stay
quick, so this module imports nothing of the compiler at the top: xDSL (a quarter of a
second to import) is imported only when something is compiled or help is printed.
"""

import argparse
import gc
import os
import sys
import time
from collections.abc import Sequence

from mg_xdsl.support import collector

STDIN = "-"  # the program's path that means standard input
STDIN_NAME = "<stdin>"  # ... and how messages name it

ENVIRONMENT = """environment:
  MGC_KEEP=dir       keep every intermediate file (IR after each stage, LLVM IR) in dir
  MGC_DEBUG=1        show Python tracebacks for internal compiler errors
  MGC_CACHE_DIR=dir  where `mgc run` and the Python API keep compiled code to run it again
                     without compiling (default $XDG_CACHE_HOME/mg-xdsl, else ~/.cache/mg-xdsl)
  MGC_NO_CACHE=1     neither reads nor writes that cache (as `mgc run --no-cache`)
  MGC_VERIFY_EACH=1  verify the IR after every stage (as --verify-each)
  CC=compiler        the C compiler `mgc build` links with (default: cc, gcc or clang)
  NO_COLOR=1         errors in plain text even on a terminal (no-color.org)
  MG_NUM_THREADS=N   threads for the compiled code's parallel loops (default: the CPUs)
  MG_MALLOC=system   leave glibc's malloc as it is (by default a program keeps the buffers
                     it frees for reuse instead of faulting them in again)
  MG_WAIT_POLICY=passive  idle worker threads sleep at once (by default they watch for
                     the next parallel loop some 40 microseconds first)
"""


def version_text(tool: str) -> str:
    """What ``--version`` prints: this project's version, xDSL's and LLVM's (the LLVM inside
    llvmlite, which makes all native code). Shared with ``mg-opt``."""
    from importlib.metadata import PackageNotFoundError, version  # (35 ms: only for --version)

    import llvmlite
    import llvmlite.binding as llvm

    import mg_xdsl

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "(not installed)"

    ours = getattr(mg_xdsl, "__version__", None) or installed("mg-xdsl")
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    return (
        f"{tool} (mg-xdsl, the Mountain Goat compiler) {ours}\n"
        f"xDSL {installed('xdsl')}\n"
        f"LLVM {llvm_version} (llvmlite {llvmlite.__version__})"
    )


class VersionAction(argparse.Action):
    """``--version``, whose text is made only when asked for: it imports llvmlite, which a
    cached ``mgc run`` would otherwise pay for before it needs to."""

    def __init__(
        self,
        option_strings,
        dest=argparse.SUPPRESS,
        default=argparse.SUPPRESS,
        help="print the versions of mg-xdsl, xDSL and LLVM, and exit",
    ):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text(parser.prog.split()[0]))
        parser.exit()


def stages_help() -> str:
    """The stages ``mgc mlir --stage`` takes, with the passes of the default pipeline."""
    from mg_xdsl.pipeline.stages import OPTIMISED_STAGES  # (see the module docstring)

    lines = "\n".join(f"  {s.name:<7} {s.description}" for s in OPTIMISED_STAGES)
    return f"""stages (for --stage), in pipeline order (`mgc pipeline` lists their passes):
{lines}
"""


def pipeline_help() -> str:
    """The passes of the default (optimised) pipeline and of ``--reference``, per stage."""
    import textwrap

    from mg_xdsl.pipeline.stages import OPTIMISED_STAGES, REFERENCE_STAGES  # (see the module docstring)

    def listing(stages) -> str:
        return "\n".join(
            textwrap.fill(
                ", ".join(s.passes),
                width=88,
                initial_indent=f"    {s.name:<7} ",
                subsequent_indent=" " * 12,
                break_on_hyphens=False,
            )
            for s in stages
            if s.passes
        )

    return f"""pipeline (after the front end; `mgc pipeline [--reference]` prints it for mg-opt -p):
  by default, the optimised pipeline:
{listing(OPTIMISED_STAGES)}
    (vectorize-reductions, tile-matmul and stream-large-results shape their code for the
    CPU, this machine's or --cpu NAME's: `mgc pipeline [--cpu NAME]` shows their options)
  with --reference, the reference pipeline (one loop nest per op; no fusion, tiling,
  vectors or threads):
{listing(REFERENCE_STAGES)}
"""


EXAMPLES = """examples:
  mgc run examples/07_mlp_layer.mg
  mgc run --gpu examples/07_mlp_layer.mg          (kernels on an NVIDIA GPU)
  mgc run --gpu-emulated examples/07_mlp_layer.mg (the same kernels, run on the CPU)
  echo 'print relu([[1, -2]])' | mgc run -        (the program from standard input)
  mgc run train.mg lr=0.05 steps=10               (its arg("lr", 0.1), arg("steps", 100))
  mgc mlir examples/01_relu.mg --stage affine
  mg-opt examples/01_relu.mg -p lower-mg-to-affine,lower-affine   (one pass at a time)
  mg-opt examples/01_relu.mg -p "$(mgc pipeline)" -t llvm        (all of them)
"""


def epilog(command: str | None = None) -> str:
    """The end of a ``--help``: what the command's options refer to, the environment and
    examples. Only ``mgc mlir`` (and the overview) lists the stages: no other command takes
    one."""
    if command in ("run", "build", "lib", "llvm"):
        return pipeline_help() + "\n" + ENVIRONMENT
    if command in ("mlir", None):
        return stages_help() + "\n" + ENVIRONMENT + "\n" + EXAMPLES
    return ENVIRONMENT


class HelpParser(argparse.ArgumentParser):
    """An argument parser whose help ends with ``epilog(command)``, built only when help is
    printed: it lists the pipeline's stages or passes, and ``mg_xdsl.pipeline.stages`` imports
    xDSL."""

    def __init__(self, *args, command: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.command = command

    def format_help(self) -> str:
        self.epilog = epilog(self.command)
        return super().format_help()


class StageNames(Sequence):
    """The choices of ``--stage``, read from ``mg_xdsl.pipeline.stages`` only when argparse checks
    or shows them (not when it merely builds the parser), for the same reason."""

    def __getitem__(self, index):
        from mg_xdsl.pipeline.stages import STAGE_NAMES

        return STAGE_NAMES[index]

    def __len__(self) -> int:
        from mg_xdsl.pipeline.stages import STAGE_NAMES

        return len(STAGE_NAMES)


def parser() -> argparse.ArgumentParser:
    p = HelpParser(
        prog="mgc",
        description="The Mountain Goat compiler: .mg source -> mg dialect -> affine -> "
        "scf -> cf -> LLVM dialect -> LLVM IR -> native code.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action=VersionAction)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")  # subparsers are HelpParsers too
    sub.required = True

    def command(name: str, help: str) -> argparse.ArgumentParser:
        c = sub.add_parser(
            name, help=help, description=help, command=name, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        c.add_argument("file", help="the .mg program (- reads it from standard input)")
        c.add_argument(
            "-w", "--no-warnings", action="store_true", help="do not print the compiler's warnings (on stderr)"
        )
        c.add_argument(
            "--verify-each",
            action="store_true",
            help="verify the IR after every stage (slower; says which stage made "
            "invalid IR). Without it only IR that is printed is verified: LLVM "
            "verifies what is compiled",
        )
        if name != "ptx":
            c.add_argument(
                "--reference",
                action="store_true",
                help="lower with the reference pipeline: one loop nest per op, no "
                "fusion, tiling, vectors or threads (the optimised one is the default)",
            )
        return c

    run = command("run", "compile the program to native code in memory and run it")
    run.add_argument(
        "arguments",
        nargs="*",
        metavar="NAME=VALUE",
        help='the values of the program\'s run-time arguments (its arg("NAME", DEFAULT)s), after the '
        "program: mgc run prog.mg lr=0.05 steps=10; `mgc run prog.mg -- --help` lists them with their defaults",
    )
    backend_help = (
        "who lowers the affine-level IR to LLVM: this project's passes (xdsl, the "
        "default) or upstream MLIR's mlir-opt-22 (mlir)"
    )
    run.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    run.add_argument(
        "--opt", type=int, default=2, choices=range(4), metavar="N", help="LLVM optimisation level 0-3 (default 2)"
    )
    gpu = run.add_mutually_exclusive_group()
    gpu.add_argument(
        "--gpu",
        dest="gpu",
        action="store_const",
        const="cuda",
        help="run every parallel loop nest as a kernel on the NVIDIA GPU (through "
        "cuda-python's driver API; pip install 'mg-xdsl[gpu]')",
    )
    gpu.add_argument(
        "--gpu-emulated",
        dest="gpu",
        action="store_const",
        const="emulated",
        help="the same kernels and launches, but the kernels run on the CPU one "
        "thread at a time: tests the GPU path on a machine without a GPU",
    )
    run.add_argument(
        "--time",
        action="store_true",
        help="report on stderr how long each step took, and whether the compiled code came from the cache",
    )
    run.add_argument(
        "--no-cache",
        action="store_true",
        help="compile the program even if it is in the cache of compiled programs, "
        "and do not store it there (as MGC_NO_CACHE=1)",
    )
    build = command("build", "compile the program to a native executable")
    build.add_argument(
        "-o", dest="output", metavar="EXE", help="the executable to write (default: the program's name without .mg)"
    )
    build.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    build.add_argument(
        "--opt", type=int, default=2, choices=range(4), metavar="N", help="LLVM optimisation level 0-3 (default 2)"
    )
    cpu_help = (
        "the CPU to compile for, as LLVM names it (default: this machine's own): its "
        "instruction sets, and kernels shaped for its vector registers; e.g. x86-64-v3 "
        "for any AVX2 machine, and for valgrind, which cannot run AVX-512 code"
    )
    build.add_argument("--cpu", metavar="NAME", help=cpu_help)
    lib = command("lib", "compile the program's defs to DIR/NAME.o and a C++ header DIR/NAME.h")
    lib.add_argument(
        "-o", dest="output", metavar="DIR", default=".", help="the directory to write into (default: the current one)"
    )
    lib.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    lib.add_argument(
        "--opt", type=int, default=2, choices=range(4), metavar="N", help="LLVM optimisation level 0-3 (default 2)"
    )
    lib.add_argument("--cpu", metavar="NAME", help=cpu_help)
    ptx = command("ptx", "print PTX for the program's kernels (one per parallel loop nest)")
    ptx.add_argument(
        "--gpu-arch",
        default="sm_80",
        metavar="SM",
        help="the NVIDIA architecture to compile for (default sm_80; e.g. sm_90)",
    )
    ptx.add_argument(
        "--check", action="store_true", help="also assemble the PTX with ptxas and report the result on stderr"
    )
    mlir = command("mlir", "print the program's MLIR after a stage (default: the mg dialect)")
    mlir.add_argument(
        "--stage",
        choices=StageNames(),
        default="mg",
        metavar="STAGE",
        help="print the IR after this stage: %(choices)s (default mg)",
    )
    mlir.add_argument("--generic", action="store_true", help="print ops in MLIR's generic form")
    mlir.add_argument("--debuginfo", action="store_true", help="print source locations (loc(...)) on the ops")
    llvm = command("llvm", "print the program's LLVM IR")
    llvm.add_argument("--backend", choices=("xdsl", "mlir"), default="xdsl", help=backend_help)
    llvm.add_argument(
        "--opt",
        type=int,
        default=0,
        choices=range(4),
        metavar="N",
        help="optimise at -ON before printing (default 0: as translated)",
    )
    help = "print the passes mgc runs, as one argument for mg-opt -p"
    passes = sub.add_parser(
        "pipeline",
        help=help,
        command="pipeline",
        description=help + ': mg-opt prog.mg -p "$(mgc pipeline)" -t llvm',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    passes.add_argument(
        "--reference", action="store_true", help="the reference pipeline instead of the optimised one (the default)"
    )
    passes.add_argument(
        "--cpu",
        metavar="NAME",
        help="the pipeline for that CPU (as LLVM names it) instead of this "
        "machine's: the options of the passes that shape kernels for it",
    )
    help = "say what an error code means, with an example (without a code: list the codes)"
    explain = sub.add_parser(
        "explain", help=help, description=help, command="explain", formatter_class=argparse.RawDescriptionHelpFormatter
    )
    explain.add_argument("code", nargs="?", help="a code from an error message, e.g. E-DIM-001")
    return p


def read_source(path: str) -> bytes:
    """The program's bytes; ``-`` is standard input."""
    if path == STDIN:
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        print(f"mgc: error: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(1)


def source_name(args: argparse.Namespace) -> str:
    """The program's path as messages show it."""
    return STDIN_NAME if args.file == STDIN else args.file


def print_warnings(args: argparse.Namespace, warnings) -> None:
    """The front end's warnings, already rendered as ``PATH:LINE: warning: MESSAGE``, on
    stderr (unless ``--no-warnings``). Flushed, so that they come before anything the
    program itself writes to stderr (a failed run-time check)."""
    if warnings and not args.no_warnings:
        print("\n".join(warnings), file=sys.stderr, flush=True)


def print_module(module, generic: bool, debuginfo: bool) -> None:
    from xdsl.printer import Printer  # (see the module docstring)

    Printer(stream=sys.stdout, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    print()


def checked_cpu(args: argparse.Namespace) -> str | None:
    """``--cpu``, if given and known to LLVM (otherwise a usage error, exit 2)."""
    cpu = getattr(args, "cpu", None)
    if cpu is not None:
        from mg_xdsl.core.target import check_cpu  # (see the module docstring)

        try:
            check_cpu(cpu)
        except ValueError as e:
            print(f"mgc: error: {e}", file=sys.stderr)
            sys.exit(2)
    return cpu


def compilation(args: argparse.Namespace, source: bytes):
    from mg_xdsl.driver import Compilation, verify_each_requested  # (see the module docstring)

    cpu = checked_cpu(args)
    return Compilation(
        source,
        source_name(args),
        lib=args.command == "lib",
        cpu=cpu,
        backend=getattr(args, "backend", "xdsl"),
        gpu=getattr(args, "gpu", None),
        optimise=not getattr(args, "reference", False),
        verify_each=args.verify_each or verify_each_requested(),
    )


def usage_error(message: str) -> int:
    print(f"mgc: error: {message}", file=sys.stderr)
    return 2


def explain(code: str | None) -> int:
    from mg_xdsl.language import error_codes  # (see the module docstring)

    if code is None:
        print(error_codes.listing())
        return 0
    if code.upper() not in error_codes.CODES:
        return usage_error(f"unknown error code {code!r} (mgc explain lists them)")
    print(error_codes.explanation(code.upper()))
    return 0


def use_color(stream) -> bool:
    """Colour on a terminal only, and not where NO_COLOR is set (no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def execute(args: argparse.Namespace) -> int:
    if args.command == "explain":
        return explain(args.code)
    if args.command == "pipeline":
        from mg_xdsl.core.target import target  # (see the module docstring)
        from mg_xdsl.pipeline.stages import pass_pipeline

        cpu = checked_cpu(args)
        print(pass_pipeline(optimise=not args.reference, target=target(cpu) if cpu else None))
        return 0
    if args.file == STDIN and args.command == "build" and not args.output:
        return usage_error("give -o EXE: a program read from standard input has no name to name the executable after")
    if args.file == STDIN and args.command == "lib":
        return usage_error(
            "mgc lib names its files after the program (NAME.o, NAME.h): give it a file, not standard input"
        )
    if args.command == "mlir" and args.stage == "linalg" and args.reference:
        return usage_error(
            "--stage linalg: the reference pipeline (--reference) has no linalg "
            "stage; it lowers the mg dialect straight to affine loops"
        )
    if args.command == "run":
        return run(args)
    if args.command == "ptx":
        return ptx(args)
    comp = compilation(args, read_source(args.file))
    try:
        return compile_and_write(args, comp)
    finally:
        # Said even if a later step (linking) fails; the front end ran by then, if at all.
        print_warnings(args, comp.warnings)


def compile_and_write(args: argparse.Namespace, comp) -> int:
    """``mgc build``, ``lib``, ``mlir`` and ``llvm``: compile, and write the result."""
    if args.command == "build":
        out = args.output or os.path.splitext(os.path.basename(args.file))[0]
        comp.build(out, args.opt)
        return 0
    if args.command == "lib":
        obj, header = comp.library(args.output, args.opt)
        print(f"wrote {obj} and {header}")
        return 0
    if args.command == "mlir":
        print_module(comp.mlir(args.stage), args.generic, args.debuginfo)
        return 0
    assert args.command == "llvm"
    if args.opt:
        from mg_xdsl.backend.jit import optimise  # (see the module docstring)

        print(optimise(comp.llvm_ir(), args.opt), end="")
    else:
        print(comp.llvm_ir(), end="")
    return 0


def ptx(args: argparse.Namespace) -> int:
    """``mgc ptx``: the program's kernels as PTX."""
    from mg_xdsl.backend.ptx import compile_ptx, ptxas_check  # (see the module docstring)
    from mg_xdsl.language.frontend import parse_program

    source = read_source(args.file)
    text = compile_ptx(source, source_name(args), args.gpu_arch)
    # compile_ptx keeps only the module; the front end runs once more for its warnings
    # (milliseconds, against the GPU passes' and LLVM's tenths of a second).
    print_warnings(args, parse_program(source, source_name(args)).warnings)
    print(text, end="")
    if args.check:
        ok, message = ptxas_check(text, args.gpu_arch)
        print(
            f"mgc: ptxas -arch={args.gpu_arch}: {'ok' if ok else 'FAILED'}" + (f"\n{message}" if message else ""),
            file=sys.stderr,
        )
        return 0 if ok else 1
    return 0


def why_not_cached(args: argparse.Namespace) -> str | None:
    """Why ``mgc run`` must neither read nor write the cache this time, if it must."""
    from mg_xdsl.backend.cache import no_cache_requested  # (see the module docstring)

    if args.no_cache:
        return "--no-cache"
    if no_cache_requested():
        return "MGC_NO_CACHE"
    if os.environ.get("MGC_KEEP"):
        return "MGC_KEEP: the intermediate files need a full compilation"
    return None


def code_options(args: argparse.Namespace) -> dict[str, object]:
    """The options of ``mgc run`` that change the compiled code, for the cache key."""
    # The path as given: a failed run-time check's report names it ("  at PATH:LINE: ...").
    options: dict[str, object] = {
        "opt": args.opt,
        "optimise": not args.reference,
        "backend": args.backend,
        "path": args.file,
        # What the program's relative paths (load, save) are relative to: compiled in.
        "directory": os.getcwd() if args.file == "-" else os.path.dirname(os.path.abspath(args.file)),
    }
    if args.backend == "mlir":
        import shutil

        from mg_xdsl.backend.cache import tool_identity  # (see the module docstring)

        # The binaries mg_xdsl.backend.upstream.tool() would pick: a new version changes the code.
        for name in ("mlir-opt", "mlir-translate"):
            options[name] = tool_identity(shutil.which(f"{name}-22") or shutil.which(name))
    return options


def open_cache(args: argparse.Namespace, source: bytes):
    """The cache this run uses and the program's key there; or None, with why not."""
    why_not = why_not_cached(args)
    if why_not:
        return None, b"", f"off ({why_not})"
    from mg_xdsl.backend.cache import ObjectCache, default_directory, key
    from mg_xdsl.core.target import host_identity

    directory = default_directory()
    if directory is None:
        return None, b"", "off (no MGC_CACHE_DIR and no home directory)"
    return ObjectCache(directory), key(source, code_options(args), host_identity()), ""


def run(args: argparse.Namespace) -> int:
    """``mgc run``: compile the program (or find it in the cache), load it and run its main.

    Cached or not, the program runs the same way, from object code loaded into an MCJIT
    engine (``jit.ObjectEngine``), so a hit behaves exactly as a miss does. ``--gpu`` runs
    are never cached: they run through ``jit.Engine`` with the launcher's callbacks, and
    their kernels are compiled for the device at every run."""
    if args.gpu:
        return run_on_gpu(args)
    from mg_xdsl.backend.jit import ObjectEngine, TakesNoArguments  # (see the module docstring)

    times: dict[str, float] = {}
    source = read_source(args.file)
    start = time.perf_counter()
    cache, key, outcome = open_cache(args, source)
    obj, warnings = None, []
    if cache is not None:
        # A hit does not run the front end: its warnings were stored with the code.
        obj, warnings, outcome = cache.load_program(key)
        times["cache lookup"] = time.perf_counter() - start
    if obj is None:
        comp = compilation(args, source)
        obj = comp.jit_object(args.opt)
        warnings = comp.warnings
        times.update(comp.times)
        if cache is not None:
            start = time.perf_counter()
            outcome += ", " + cache.store_program(key, obj, warnings)
            times["cache store"] = time.perf_counter() - start
    print_warnings(args, warnings)
    start = time.perf_counter()
    program = ObjectEngine(obj)
    times["load object code"] = time.perf_counter() - start
    report_cache(args, outcome)
    start = time.perf_counter()
    try:
        program.run_main(args.arguments)
    except TakesNoArguments as e:
        program.close()
        print(e, file=sys.stdout if e.help else sys.stderr)
        return 0 if e.help else 1
    times["run"] = time.perf_counter() - start
    program.close()
    report_times(args, times)
    return 0


def run_on_gpu(args: argparse.Namespace) -> int:
    """``mgc run --gpu`` / ``--gpu-emulated``: compile with the GPU pipeline and run."""
    if args.backend != "xdsl":
        print("mgc: error: --gpu lowers with this project's passes; drop --backend mlir", file=sys.stderr)
        return 2
    comp = compilation(args, read_source(args.file))
    engine = comp.engine(args.opt)
    print_warnings(args, comp.warnings)
    report_cache(args, f"off (--gpu{'-emulated' if args.gpu == 'emulated' else ''})")
    start = time.perf_counter()
    from mg_xdsl.backend.jit import TakesNoArguments

    try:
        engine.run_main(args.arguments)
    except TakesNoArguments as e:
        print(e, file=sys.stdout if e.help else sys.stderr)
        return 0 if e.help else 1
    comp.timed("run", time.perf_counter() - start)
    report_times(args, comp.times)
    return 0


def report_cache(args: argparse.Namespace, outcome: str) -> None:
    """With ``--time``: whether the code came from the cache. Said before the program runs,
    so that it is said even when the program aborts (a failed run-time check)."""
    if args.time:
        print(f"mgc: cache: {outcome}", file=sys.stderr, flush=True)


def report_times(args: argparse.Namespace, times: dict[str, float]) -> None:
    """With ``--time``: how long each step took."""
    if not args.time:
        return
    for name, seconds in times.items():
        print(f"mgc: {name:<28} {seconds * 1000:8.1f} ms", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """The ``mgc`` command. ``argv`` None means this process's own arguments: mgc is the
    program, and the process ends when this returns.

    Python's cyclic garbage collector is paused meanwhile (``support.collector``). When
    mgc is the program, the objects are also frozen (``gc.freeze``) before returning, so that
    the interpreter's last collections at exit skip them too (0.15 s of ``mgc run --no-cache
    examples/01_relu.mg``: a Zen 3, byte-compiled, medians of six alternating runs,
    2026-12-07)."""
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra:
        # argparse fills a list of positionals only up to the first option after them:
        # `mgc run prog.mg --time lr=0.05` leaves lr=0.05 over, the program's all the same.
        if args.command != "run" or any(a.startswith("-") for a in extra):
            p.error(f"unrecognized arguments: {' '.join(extra)}")
        args.arguments += extra
    with collector.paused():
        status = run_command(args)
    if argv is None:
        gc.freeze()
    return status


def run_command(args: argparse.Namespace) -> int:
    """Run the command, reporting what goes wrong on stderr; the exit status."""
    try:
        status = execute(args)
    except BrokenPipeError:  # e.g. `mgc mlir prog.mg | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:
        # Imported only now: mg_xdsl.language.frontend imports xDSL, which a cached run never needs.
        from mg_xdsl.backend.gpu_runtime import GpuError
        from mg_xdsl.backend.native import LinkError
        from mg_xdsl.backend.ptx import LibdeviceMissing, UnknownGpuArch
        from mg_xdsl.backend.upstream import UpstreamToolMissing
        from mg_xdsl.driver import NothingToExport
        from mg_xdsl.language.frontend import MgError

        if isinstance(e, MgError):
            print(e.render(color=use_color(sys.stderr)), file=sys.stderr)
            status = 1
        elif isinstance(e, (LinkError, UpstreamToolMissing, LibdeviceMissing, NothingToExport)):
            print(f"mgc: error: {e}", file=sys.stderr)
            status = 1
        elif isinstance(e, OSError) and e.filename is not None:  # e.g. -o in a missing directory
            print(f"mgc: error: {e.filename}: {e.strerror}", file=sys.stderr)
            status = 1
        elif isinstance(e, UnknownGpuArch):  # a wrong --gpu-arch: a usage error
            print(f"mgc: error: {e}", file=sys.stderr)
            status = 2
        elif isinstance(e, GpuError):
            print(f"mgc: error: GPU: {e}", file=sys.stderr)
            print("mgc: (--gpu-emulated runs the same kernels on the CPU instead)", file=sys.stderr)
            status = 1
        else:  # a bug in the compiler, not in the program
            if os.environ.get("MGC_DEBUG"):
                raise
            print(f"mgc: internal compiler error: {type(e).__name__}: {e}", file=sys.stderr)
            print("mgc: (set MGC_DEBUG=1 for the Python traceback)", file=sys.stderr)
            status = 3
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
