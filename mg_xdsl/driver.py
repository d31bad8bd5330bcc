"""Compiling a program from source to each of its forms, for ``mgc`` and the Python API.

``Compilation`` runs the front end and the pipeline of ``mg_xdsl.pipeline`` up to the stage
asked for, records how long each step took, and (with ``MGC_KEEP=dir``) writes every
intermediate form into ``dir``: the IR after each stage, the LLVM IR before and after
optimisation.
"""

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from mg_xdsl import pipeline


@dataclass
class Compilation:
    source: bytes | str
    path: str
    keep_dir: str | None = field(default_factory=lambda: os.environ.get("MGC_KEEP") or None)
    times: dict[str, float] = field(default_factory=dict)

    def timed(self, name: str, seconds: float) -> None:
        self.times[name] = self.times.get(name, 0.0) + seconds

    def keep(self, suffix: str, text: str) -> None:
        if self.keep_dir:
            os.makedirs(self.keep_dir, exist_ok=True)
            stem = Path(self.path).stem or "prog"
            Path(self.keep_dir, f"{stem}.{suffix}").write_text(text)

    def mlir(self, stage: str = "mg") -> ModuleOp:
        """The module after ``stage`` (raises ``MgError`` for a bad program)."""
        from mg_xdsl.frontend import compile_source

        start = time.perf_counter()
        module = compile_source(self.source, self.path)
        self.timed("front end", time.perf_counter() - start)
        self.keep("mg.mlir", str(module))
        ctx = pipeline.context()
        for s in pipeline.stages_to(stage):
            pipeline.run_stage(module, s, ctx, self.timed)
            self.keep(f"{s.name}.mlir", str(module))
        return module

    def llvm_ir(self) -> str:
        from mg_xdsl.backend.jit import translate

        module = self.mlir("llvm")
        start = time.perf_counter()
        ir = translate(module)
        self.timed("to LLVM IR", time.perf_counter() - start)
        self.keep("ll", ir)
        return ir

    def engine(self, level: int = 2):
        from mg_xdsl.backend.jit import Engine

        ir = self.llvm_ir()
        start = time.perf_counter()
        engine = Engine(ir, level)
        self.timed("LLVM optimise + JIT", time.perf_counter() - start)
        if self.keep_dir:
            self.keep("opt.ll", str(engine.module))
        return engine
