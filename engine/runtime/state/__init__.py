"""State of operators: keyed (by key group) and operator list state, snapshots, restore."""
