"""``python -m linksync``: the same command line as ``linksync``."""

from linksync.cli import main

if __name__ == "__main__":
    main()
