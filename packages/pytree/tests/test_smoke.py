import collections

import tessela_pytree as tp


def test_round_trip_mixed_nodes() -> None:
    point = collections.namedtuple("point", "x y")
    tree = {"b": [1, None, point(2, 3)], "a": (4,), "c": collections.OrderedDict(z=5, y=6)}
    leaves, treedef = tp.tree_flatten(tree)
    assert leaves == [4, 1, 2, 3, 5, 6]
    assert treedef.unflatten(leaves) == tree
    assert tp.tree_map(lambda x: x, tree) == tree
