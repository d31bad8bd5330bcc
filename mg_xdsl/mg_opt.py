"""``mg-opt``: xDSL's ``xdsl-opt`` with the mg dialect and every pass of this project.

Because it is ``xDSLOptMain`` underneath, ``-p``, ``--print-between-passes``,
``--split-input-file`` and ``--verify-diagnostics`` all work as they do in ``xdsl-opt``.
A ``.mg`` file is first run through the Mountain Goat front end, so
``mg-opt prog.mg -p lower-mg-to-affine`` shows one lowering step of a real program.
"""

import sys
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.xdsl_opt_main import xDSLOptMain

from mg_xdsl.transforms import project_passes


class MgOptMain(xDSLOptMain):
    def register_all_dialects(self):
        super().register_all_dialects()
        from mg_xdsl.dialects.mg import Mg

        self.ctx.register_dialect("mg", lambda: Mg)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in project_passes().items():
            self.register_pass(name, factory)

    def register_all_frontends(self):
        super().register_all_frontends()
        self.available_frontends["mg"] = self._parse_mg

    def _parse_mg(self, stream: IO[bytes]) -> ModuleOp:
        from mg_xdsl.frontend import MgError, compile_source

        path = self.get_input_name()
        try:
            return compile_source(stream.read(), path)
        except MgError as e:
            print(e.render(), file=sys.stderr)
            sys.exit(1)


def main():
    MgOptMain().run()


if __name__ == "__main__":
    main()
