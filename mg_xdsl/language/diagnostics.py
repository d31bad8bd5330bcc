"""What the front end reports: ``MgError`` for a program that cannot compile, warnings for
one that compiles but is likely to abort when it runs."""


class MgError(Exception):
    """A compile error in a Mountain Goat program.

    ``str()`` of it is ``PATH:LINE: error: MESSAGE``, what ``mgc`` prints; ``.message``,
    ``.line`` and ``.path`` hold the parts.
    """

    def __init__(self, line: int, message: str, path: str = "<input>"):
        super().__init__(message)
        self.line = line
        self.message = message
        self.path = path

    def render(self) -> str:
        return f"{self.path}:{self.line}: error: {self.message}"

    def __str__(self) -> str:
        # Rendered when asked, not in __init__: the path is filled in after the fact.
        return self.render()


class MgWarning(UserWarning):
    """A program that compiles but is likely wrong (see ``Program.warnings``)."""
