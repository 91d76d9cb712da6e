"""Check that an environment holds a distribution and its dependencies only.

Usage: python check_installed.py DIST SITE_PACKAGES

Walks the runtime requirements of DIST (environment markers evaluated, extras
left out) among the distributions installed in SITE_PACKAGES, and fails when
that folder holds any distribution the walk does not reach, other than the
installer's own tools. Prints what is installed. Needs ``packaging``.
"""

from __future__ import annotations

import sys
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

TOOLS = {"pip", "setuptools", "wheel", "uv"}


def main(root: str, site: str) -> int:
    dists = {canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions(path=[site])}
    root = canonicalize_name(root)
    if root not in dists:
        print(f"error: {root} is not installed in {site}", file=sys.stderr)
        return 1
    reached: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in reached or name not in dists:
            continue
        reached.add(name)
        for text in dists[name].requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(req.name))
    print(f"installed with {root}: {', '.join(sorted(set(dists) - TOOLS))}")
    extra = set(dists) - reached - TOOLS
    if extra:
        print(f"error: not required by {root}: {', '.join(sorted(extra))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
