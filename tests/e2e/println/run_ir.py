"""``mgc`` for a program given as mg-dialect IR instead of ``.mg`` text (until the front end
emits ``mg.println``): ``python run_ir.py run prog.mlir`` is ``mgc run`` with the front end
replaced by xDSL's parser of the IR; every other argument is mgc's."""

import sys
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import mg_xdsl.driver
from mg_xdsl.pipeline import stages
from mg_xdsl.tools import mgc


@dataclass
class Program:
    module: ModuleOp
    functions: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)


def parse_ir(source: bytes | str, path: str = "<input>", with_main: bool = True) -> Program:
    text = source.decode() if isinstance(source, bytes) else source
    module = Parser(stages.context(), text, path).parse_module()
    module.verify()
    return Program(module)


mg_xdsl.driver.parse_program = parse_ir

if __name__ == "__main__":
    sys.exit(mgc.main(sys.argv[1:]))
