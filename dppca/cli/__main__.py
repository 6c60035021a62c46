"""``python -m dppca.cli``: the ``dppca`` console script where it is not installed."""
import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())

__all__: list = []
