"""``python -m weaklabel`` and the ``weaklabel`` command's entry point.

The command line needs the ``cli`` extra (click, tqdm, matplotlib); without it this
says which extra to install instead of failing with a traceback.
"""

import sys


def run(argv=None):
    """Entry point of the ``weaklabel`` command."""
    from ._extras import require

    try:
        require("click", "the weaklabel command")
    except ImportError as exc:
        print(f"weaklabel: error: {exc}", file=sys.stderr)
        return 2
    from .cli import main

    return main(args=argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
