"""``mg-opt``: xDSL's ``xdsl-opt`` with the mg dialect and every pass of this project.

Because it is ``xDSLOptMain`` underneath, ``-p``, ``--print-between-passes``,
``--split-input-file``, ``--verify-diagnostics`` and ``--parsing-diagnostics`` all work as
they do in ``xdsl-opt``. A ``.mg`` file is first run through the Mountain Goat front end, so
``mg-opt prog.mg -p lower-mg-to-affine`` shows one lowering step of a real program, and
``mg-opt prog.mg -p "$(mgc pipeline)" -t llvm`` all of them.

Where ``xdsl-opt`` ends in a Python traceback, ``mg-opt`` reports like ``mgc``:

- a usage error (an unknown pass, a malformed pipeline or pass option) is one line,
  ``mg-opt: error: ...``, exit status 2;
- an input that cannot be read, text that does not parse (``PATH:LINE:COL: error: ...``
  with the line and a caret), IR that does not verify (the message, then the module with
  the op marked) or a pass that declines its input (``PassFailedException``) is an error
  with exit status 1;
- anything else is a bug in mg-opt or a pass: ``mg-opt: internal error: ...``, exit
  status 3, with the traceback only under ``MGC_DEBUG=1``.
"""

import argparse
import dataclasses
import difflib
import os
import sys
import textwrap
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.frontend.mlir import MLIRFrontend
from xdsl.parser import Parser
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.xdsl_opt_main import VersionAction, xDSLOptMain

from mg_xdsl.dialects import load_upstream_extras
from mg_xdsl.dialects.mg import Mg
from mg_xdsl.pipeline.registry import project_passes
from mg_xdsl.pipeline.stages import PIPELINES, pipeline_passes
from mg_xdsl.support.xdsl_compat import verifying
from mg_xdsl.tools.mgc import version_text

# The front end (for .mg input) and LLVM (for -t llvm) are imported where they are used:
# most runs of mg-opt need neither.


class MgOptError(Exception):
    """What ``mg-opt`` reports as ``mg-opt: error: MESSAGE`` with ``status``."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class _LazyVersion(str):
    """Stands in for xdsl-opt's ``--version`` format string: the text (which imports
    llvmlite) is made only when ``--version`` is given."""

    def format(self, *args: object, **kwargs: object) -> str:
        return version_text("mg-opt")


def _summary(pass_class: type) -> str:
    """The first sentence of a pass module's docstring, without the pass's name."""
    doc = (sys.modules[pass_class.__module__].__doc__ or "").strip()
    first = " ".join(doc.split("\n\n")[0].split()).replace("``", "")
    return first.split(": ", 1)[-1] if first.startswith(pass_class.name) else first


def _parser_factory():
    """The MLIR parser of xDSL, remembering where each value was first used, so that "values
    used but not defined" points at the first use (xDSL reports the end of the input)."""

    class Parser_(Parser):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.first_use = {}

        def resolve_operand(self, operand, type):
            if operand.operand_name not in self.ssa_values:
                self.first_use.setdefault(operand.operand_name, operand.span)
            return super().resolve_operand(operand, type)

        def parse_module(self, *args, **kwargs):
            try:
                return super().parse_module(*args, **kwargs)
            except ParseError as e:
                undefined = [self.first_use[n] for n in self.forward_ssa_references if n in self.first_use]
                if not e.msg.startswith("values used but not defined") or not undefined:
                    raise
                first = min(undefined, key=lambda span: span.start)
                raise ParseError(first, f"use of undefined value {first.text}") from None

    return Parser_


class MgOptMain(xDSLOptMain):
    def __init__(self, args=None):
        super().__init__(
            description=textwrap.fill(
                "mg-opt: the modular optimizer driver of mg-xdsl (the Mountain Goat compiler): "
                "xDSL's xdsl-opt with the mg dialect, a front end for .mg programs and this project's "
                "passes (listed at the end, before xDSL's).",
                width=79,
            ),
            args=args,
        )

    # --- what mg-opt knows --------------------------------------------------------------
    def register_all_dialects(self):
        super().register_all_dialects()
        self.ctx.register_dialect("mg", lambda: Mg)
        load_upstream_extras(self.ctx)

    def register_all_passes(self):
        # The project's passes first (they replace xDSL's of the same name), then xDSL's:
        # --help lists them in this order.
        for name, factory in project_passes().items():
            self.register_pass(name, factory)
        for name, cls in pipeline_passes().items():
            self.register_pass(name, lambda cls=cls: cls)
        ours = dict(self.available_passes)
        super().register_all_passes()
        self.available_passes.update(ours)
        self.xdsl_pass_names = [n for n in self.available_passes if n not in ours]

    def register_all_frontends(self):
        super().register_all_frontends()
        self.available_frontends["mg"] = self._parse_mg
        parser_class = _parser_factory()

        class MLIRFrontend_(MLIRFrontend):
            def parse(self, ctx, input, input_name="input"):
                return parser_class(ctx, input.read(), input_name).parse_module(not self.no_implicit_module)

        self.available_frontends["mlir"] = lambda: MLIRFrontend_

    def _parse_mg(self, stream: IO[bytes]) -> ModuleOp:
        from mg_xdsl.language.frontend import MgError, parse_program  # (see the top)

        try:
            program = parse_program(stream.read(), self.get_input_name())
        except MgError as e:
            print(e.render(), file=sys.stderr)
            sys.exit(1)
        warnings = program.warnings
        if warnings and not self.args.no_warnings:
            print("\n".join(warnings), file=sys.stderr, flush=True)
        return program.module

    # --- the command line ---------------------------------------------------------------
    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "mg-opt"
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.add_argument(
            "-w",
            "--no-warnings",
            action="store_true",
            help="do not print the Mountain Goat front end's warnings (.mg input)",
        )
        for action in arg_parser._actions:
            if action.dest == "passes":
                action.help = (
                    "a pass pipeline: pass names separated by commas, options in braces, "
                    "e.g. lower-mg-to-affine,lower-affine; the passes are listed below, and "
                    "`mgc pipeline` prints the one mgc runs"
                )
            elif action.dest == "input_file":
                action.help = "the input: a .mlir file or a .mg program (none or -: MLIR from standard input)"
            elif isinstance(action, VersionAction):  # --version
                action.version_format = _LazyVersion()
                action.help = "print the versions of mg-xdsl, xDSL and LLVM, and exit"
        plain_format_help = arg_parser.format_help

        def format_help() -> str:  # the pass list needs every pass module: only for --help
            arg_parser.epilog = self.passes_help()
            return plain_format_help()

        arg_parser.format_help = format_help

    def passes_help(self) -> str:
        ours = project_passes()
        lines = [
            f"  {name:<34} {textwrap.shorten(_summary(factory()), 52, placeholder=' ...')}"
            for name, factory in ours.items()
        ]
        theirs = textwrap.fill(
            ", ".join(self.xdsl_pass_names),
            width=88,
            initial_indent="  ",
            subsequent_indent="  ",
            break_on_hyphens=False,
        )
        pipelines = [
            f"  {name:<34} {textwrap.shorten(what, 52, placeholder=' ...')}" for name, (_, what) in PIPELINES.items()
        ]
        return (
            "this project's passes (mg_xdsl/conversions, mg_xdsl/transforms):\n"
            + "\n".join(lines)
            + "\n\nxDSL's passes:\n"
            + theirs
            + "\n\nwhole pipelines (mg_xdsl/pipeline/stages.py), as one pass; options to=STAGE, cpu=NAME:\n"
            + "\n".join(pipelines)
            + "\n\nmgc's whole pipeline, pass by pass: mg-opt prog.mg -p "
            '"$(mgc pipeline)" -t llvm   (mgc pipeline --reference: the reference pipeline)\n'
            "MGC_DEBUG=1 shows the Python traceback of an internal error.\n"
        )

    def setup_pipeline(self):
        """xdsl-opt's, with the usage errors it raises as exceptions reported as such."""
        try:
            specs = tuple(parse_pipeline(self.args.passes))
        except ArgSpecParseError as e:  # a BaseException in xDSL
            raise MgOptError(
                f"cannot parse the pass pipeline -p '{self.args.passes}':\n" + str(e).split("\n", 1)[-1].rstrip(),
                status=2,
            ) from None
        for spec in specs:
            if spec.name not in self.available_passes:
                near = difflib.get_close_matches(spec.name, self.available_passes, n=3, cutoff=0.6)
                hint = (
                    f"did you mean {', '.join(near[:-1]) + ' or ' if len(near) > 1 else ''}{near[-1]}?"
                    if near
                    else "mg-opt --help lists the passes"
                )
                raise MgOptError(f"unknown pass '{spec.name}' ({hint})", status=2)
        try:
            super().setup_pipeline()
        except ValueError as e:  # a pass option that the pass does not have, or of a wrong type
            raise MgOptError(f"bad pass pipeline -p '{self.args.passes}': {e}", status=2) from None
        # Say where IR stopped verifying: in the input, or after which pass.
        verify_between = self.pipeline.callback
        assert verify_between is not None, "xdsl-opt verifies between passes"

        def callback(previous, module, following):
            try:
                with verifying():  # in linear time (see mg_xdsl.support.xdsl_compat)
                    verify_between(previous, module, following)
            except VerifyException as e:
                setattr(e, "mg_opt_where", f"after pass {previous.name}" if previous else "in the input")  # (report)
                raise

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        path = self.args.input_file
        if path == "-":
            return sys.stdin.buffer, "mlir"
        try:
            stream, extension = super().get_input_stream()
        except OSError as e:
            raise MgOptError(f"cannot read {path}: {e.strerror}") from None
        if not self.args.frontend and extension not in self.available_frontends:
            stream.close()
            raise MgOptError(
                f"cannot tell the language of {path} from its extension: name it "
                f".mlir or .mg, or give -f FRONTEND ({', '.join(self.available_frontends)})"
            )
        return stream, extension

    def get_input_name(self):
        return "<stdin>" if self.args.input_file in (None, "-") else self.args.input_file

    def output_resulting_program(self, prog: ModuleOp) -> str:
        try:
            if self.args.target == "llvm":  # as mgc translates
                from mg_xdsl.backend.jit import translate  # (see the top)

                return translate(prog) + "\n"
            return super().output_resulting_program(prog)
        except NotImplementedError as e:  # xDSL's LLVM translation meets a non-LLVM op
            raise MgOptError(
                f'-t {self.args.target}: {e} (lower to the LLVM dialect first, e.g. -p "$(mgc pipeline)")'
            ) from None


def render_parse_error(e: ParseError) -> str:
    """``PATH:LINE:COL: error: MESSAGE``, then the line with the span marked."""
    context = e.span.print_with_context(None).rstrip("\n").split("\n", 1)[-1]
    text = f"{e.span.get_location()}: error: {e.msg}\n{context}"
    if isinstance(e, MultipleSpansParseError):
        text += "\n" + (e.ref_text or "") + "".join(span.print_with_context(msg) for span, msg in e.refs)
    return text.rstrip("\n")


def report(e: BaseException) -> int:
    """Print what went wrong like mgc does; the exit status."""
    if isinstance(e, MgOptError):
        print(f"mg-opt: error: {e}", file=sys.stderr)
        return e.status
    if isinstance(e, ParseError):
        print(render_parse_error(e), file=sys.stderr)
        return 1
    if isinstance(e, DiagnosticException):  # verifier failures, passes that decline
        where = getattr(e, "mg_opt_where", None)
        kind = f"invalid IR {where}: " if where else ""
        print(f"mg-opt: error: {kind}{e}", file=sys.stderr)
        for note in getattr(e, "__notes__", []):  # the module, with the failing op marked
            print(note.rstrip("\n"), file=sys.stderr)
        return 1
    print(f"mg-opt: internal error: {type(e).__name__}: {e}", file=sys.stderr)
    print("mg-opt: (set MGC_DEBUG=1 for the Python traceback)", file=sys.stderr)
    return 3


def main(argv: list[str] | None = None) -> int:
    try:
        MgOptMain(args=argv).run()
    except BrokenPipeError:  # `mg-opt ... | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (Exception, ArgSpecParseError) as e:
        if os.environ.get("MGC_DEBUG") and not isinstance(e, (MgOptError, ParseError, DiagnosticException)):
            raise
        sys.stdout.flush()
        return report(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
